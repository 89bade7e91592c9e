package dev.onebotgateway.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Any;
import com.google.protobuf.Message;
import com.google.rpc.Code;
import com.google.rpc.ErrorInfo;
import dev.onebotgateway.v1.Approval;
import dev.onebotgateway.v1.ApprovalServiceGrpc;
import dev.onebotgateway.v1.ApprovalState;
import dev.onebotgateway.v1.AuditDecision;
import dev.onebotgateway.v1.AuditRecord;
import dev.onebotgateway.v1.AuditServiceGrpc;
import dev.onebotgateway.v1.Chat;
import dev.onebotgateway.v1.ChatMessage;
import dev.onebotgateway.v1.DecideApprovalRequest;
import dev.onebotgateway.v1.DecideApprovalResponse;
import dev.onebotgateway.v1.ErrorReason;
import dev.onebotgateway.v1.GetApprovalRequest;
import dev.onebotgateway.v1.GetApprovalResponse;
import dev.onebotgateway.v1.GroupServiceGrpc;
import dev.onebotgateway.v1.ListApprovalsRequest;
import dev.onebotgateway.v1.ListApprovalsResponse;
import dev.onebotgateway.v1.ListAuditRecordsRequest;
import dev.onebotgateway.v1.ListAuditRecordsResponse;
import dev.onebotgateway.v1.MessageServiceGrpc;
import dev.onebotgateway.v1.OnBehalfOf;
import dev.onebotgateway.v1.PokeMemberRequest;
import dev.onebotgateway.v1.PokeMemberResponse;
import dev.onebotgateway.v1.RecallMessageRequest;
import dev.onebotgateway.v1.RecallMessageResponse;
import dev.onebotgateway.v1.SendMessageRequest;
import dev.onebotgateway.v1.SendMessageResponse;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Offline tests of acting on behalf of a QQ user, the approval helpers, the audit pages and the
 * approval id of an error, against an in-process fake gateway that records what reaches it.
 */
class GovernanceTest {
  static final long GROUP = 20000003L;

  final List<Message> requests = new CopyOnWriteArrayList<>();
  Server server;
  Client client;

  <T> void answer(Message request, StreamObserver<T> responses, T response) {
    requests.add(request);
    responses.onNext(response);
    responses.onCompleted();
  }

  @BeforeEach
  void start() throws IOException {
    server =
        Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
            .addService(
                new MessageServiceGrpc.MessageServiceImplBase() {
                  @Override
                  public void sendMessage(SendMessageRequest request, StreamObserver<SendMessageResponse> responses) {
                    if (request.getText().equals("hold")) {
                      requests.add(request);
                      com.google.rpc.Status status =
                          com.google.rpc.Status.newBuilder()
                              .setCode(Code.FAILED_PRECONDITION_VALUE)
                              .setMessage("held for approval a1")
                              .addDetails(
                                  Any.pack(
                                      ErrorInfo.newBuilder()
                                          .setReason("APPROVAL_PENDING")
                                          .setDomain(GatewayException.ERROR_DOMAIN)
                                          .putMetadata("approval_id", "a1")
                                          .putMetadata("action", "send")
                                          .build()))
                              .build();
                      responses.onError(StatusProto.toStatusRuntimeException(status));
                      return;
                    }
                    answer(request, responses, SendMessageResponse.newBuilder().addMessageIds(1).build());
                  }

                  @Override
                  public void recallMessage(
                      RecallMessageRequest request, StreamObserver<RecallMessageResponse> responses) {
                    answer(request, responses, RecallMessageResponse.getDefaultInstance());
                  }
                })
            .addService(
                new GroupServiceGrpc.GroupServiceImplBase() {
                  @Override
                  public void pokeMember(PokeMemberRequest request, StreamObserver<PokeMemberResponse> responses) {
                    answer(request, responses, PokeMemberResponse.getDefaultInstance());
                  }
                })
            .addService(
                new ApprovalServiceGrpc.ApprovalServiceImplBase() {
                  @Override
                  public void listApprovals(
                      ListApprovalsRequest request, StreamObserver<ListApprovalsResponse> responses) {
                    answer(
                        request,
                        responses,
                        ListApprovalsResponse.newBuilder()
                            .addApprovals(
                                Approval.newBuilder()
                                    .setApprovalId("a1")
                                    .setState(ApprovalState.APPROVAL_STATE_PENDING))
                            .build());
                  }

                  @Override
                  public void getApproval(GetApprovalRequest request, StreamObserver<GetApprovalResponse> responses) {
                    ApprovalState state =
                        request.hasWait()
                            ? ApprovalState.APPROVAL_STATE_EXECUTED
                            : ApprovalState.APPROVAL_STATE_PENDING;
                    answer(
                        request,
                        responses,
                        GetApprovalResponse.newBuilder()
                            .setApproval(Approval.newBuilder().setApprovalId(request.getApprovalId()).setState(state))
                            .build());
                  }

                  @Override
                  public void decideApproval(
                      DecideApprovalRequest request, StreamObserver<DecideApprovalResponse> responses) {
                    ApprovalState state =
                        request.getApprove()
                            ? ApprovalState.APPROVAL_STATE_EXECUTED
                            : ApprovalState.APPROVAL_STATE_REJECTED;
                    answer(
                        request,
                        responses,
                        DecideApprovalResponse.newBuilder()
                            .setApproval(Approval.newBuilder().setApprovalId(request.getApprovalId()).setState(state))
                            .build());
                  }
                })
            .addService(
                new AuditServiceGrpc.AuditServiceImplBase() {
                  @Override
                  public void listAuditRecords(
                      ListAuditRecordsRequest request, StreamObserver<ListAuditRecordsResponse> responses) {
                    ListAuditRecordsResponse page =
                        request.getPageToken().isEmpty()
                            ? ListAuditRecordsResponse.newBuilder()
                                .addRecords(AuditRecord.newBuilder().setId(3))
                                .addRecords(AuditRecord.newBuilder().setId(2))
                                .setNextPageToken("p2")
                                .build()
                            : ListAuditRecordsResponse.newBuilder()
                                .addRecords(AuditRecord.newBuilder().setId(1))
                                .build();
                    answer(request, responses, page);
                  }
                })
            .build()
            .start();
    client =
        Client.builder("http://127.0.0.1:" + server.getPort())
            .accountId("bot1")
            .timeout(Duration.ofSeconds(5))
            .build();
  }

  @AfterEach
  void stop() {
    client.close();
    server.shutdownNow();
  }

  @Test
  void onBehalfOfReachesTheGateway() throws IOException {
    ChatMessage groupMessage =
        ChatMessage.newBuilder().setMessageId(77).setChat(Chat.newBuilder().setGroupId(GROUP)).build();
    ChatMessage privateMessage =
        ChatMessage.newBuilder().setMessageId(88).setChat(Chat.newBuilder().setUserId(10001)).build();
    client.send(OutgoingMessage.replyFor(groupMessage).text("收到"));
    client.send(OutgoingMessage.replyFor(privateMessage).text("私聊"));
    client.send(OutgoingMessage.toGroup(GROUP).text("for a user").onBehalfOfUser(10002));
    client.send(OutgoingMessage.toGroup(GROUP).text("for nobody"));
    client.reply(privateMessage, true, OutgoingMessage.reply().text("reply").onBehalfOfMessage(88));
    client.recall(99, Client.onBehalfOfMessage(77));
    client.recall(100);
    client.poke(GROUP, 10002, Client.onBehalfOfUser(10001));
    client.poke(null, 10002);
    assertEquals(9, requests.size());
    SendMessageRequest groupReply = (SendMessageRequest) requests.get(0);
    assertEquals(GROUP, groupReply.getGroupId());
    assertFalse(groupReply.hasUserId());
    assertEquals(77, groupReply.getReplyToMessageId());
    assertEquals(OnBehalfOf.RequesterCase.MESSAGE_ID, groupReply.getOnBehalfOf().getRequesterCase());
    assertEquals(77, groupReply.getOnBehalfOf().getMessageId());
    assertEquals("bot1", groupReply.getAccountId());
    SendMessageRequest privateReply = (SendMessageRequest) requests.get(1);
    assertEquals(10001, privateReply.getUserId());
    assertFalse(privateReply.hasGroupId());
    assertEquals(88, privateReply.getReplyToMessageId());
    assertEquals(88, privateReply.getOnBehalfOf().getMessageId());
    SendMessageRequest forUser = (SendMessageRequest) requests.get(2);
    assertEquals(OnBehalfOf.RequesterCase.USER_ID, forUser.getOnBehalfOf().getRequesterCase());
    assertEquals(10002, forUser.getOnBehalfOf().getUserId());
    assertFalse(((SendMessageRequest) requests.get(3)).hasOnBehalfOf());
    assertEquals(88, ((SendMessageRequest) requests.get(4)).getOnBehalfOf().getMessageId());
    RecallMessageRequest recallFor = (RecallMessageRequest) requests.get(5);
    assertEquals(99, recallFor.getMessageId());
    assertEquals(77, recallFor.getOnBehalfOf().getMessageId());
    assertFalse(((RecallMessageRequest) requests.get(6)).hasOnBehalfOf());
    PokeMemberRequest pokeFor = (PokeMemberRequest) requests.get(7);
    assertEquals(GROUP, pokeFor.getGroupId());
    assertEquals(10001, pokeFor.getOnBehalfOf().getUserId());
    PokeMemberRequest poke = (PokeMemberRequest) requests.get(8);
    assertFalse(poke.hasOnBehalfOf());
    assertFalse(poke.hasGroupId());
    assertThrows(ClientException.class, () -> OutgoingMessage.replyFor(ChatMessage.getDefaultInstance()));
  }

  @Test
  void approvalPendingNamesTheApproval() {
    GatewayException err =
        assertThrows(GatewayException.class, () -> client.send(OutgoingMessage.toGroup(GROUP).text("hold")));
    assertEquals(io.grpc.Status.Code.FAILED_PRECONDITION, err.code());
    assertEquals(ErrorReason.ERROR_REASON_APPROVAL_PENDING, err.errorReason());
    assertTrue(err.isApprovalPending());
    assertFalse(err.isPolicyDenied());
    assertEquals("a1", err.approvalId().orElseThrow());
    com.google.rpc.Status denied =
        com.google.rpc.Status.newBuilder()
            .setCode(Code.PERMISSION_DENIED_VALUE)
            .setMessage("no")
            .addDetails(
                Any.pack(
                    ErrorInfo.newBuilder()
                        .setReason("POLICY_DENIED")
                        .putMetadata("role", "member")
                        .putMetadata("approval_id", "x")
                        .build()))
            .build();
    GatewayException policy = GatewayException.from(StatusProto.toStatusRuntimeException(denied));
    assertTrue(policy.isPolicyDenied());
    assertFalse(policy.isApprovalPending());
    assertTrue(policy.approvalId().isEmpty());
    assertEquals("member", policy.metadata().get("role"));
  }

  @Test
  void approvalHelpers() {
    List<Approval> listed = client.approvals(ApprovalState.APPROVAL_STATE_PENDING);
    assertEquals("a1", listed.get(0).getApprovalId());
    assertTrue(Client.isApprovalOpen(listed.get(0)));
    assertEquals(ApprovalState.APPROVAL_STATE_PENDING, client.approval("a1").getState());
    Approval done = client.waitApproval("a1", Duration.ofMillis(90_500));
    assertEquals(ApprovalState.APPROVAL_STATE_EXECUTED, done.getState());
    assertFalse(Client.isApprovalOpen(done));
    assertEquals(ApprovalState.APPROVAL_STATE_EXECUTED, client.approve("a1").getState());
    assertEquals(ApprovalState.APPROVAL_STATE_REJECTED, client.reject("a2").getState());
    assertThrows(ClientException.class, () -> client.waitApproval("a1", Duration.ofMinutes(11)));
    assertTrue(
        Client.isApprovalOpen(Approval.newBuilder().setState(ApprovalState.APPROVAL_STATE_APPROVED).build()));
    ListApprovalsRequest list = (ListApprovalsRequest) requests.get(0);
    assertEquals("bot1", list.getAccountId());
    assertEquals(ApprovalState.APPROVAL_STATE_PENDING, list.getState());
    assertFalse(((GetApprovalRequest) requests.get(1)).hasWait());
    GetApprovalRequest wait = (GetApprovalRequest) requests.get(2);
    assertEquals(90, wait.getWait().getSeconds());
    assertEquals(500_000_000, wait.getWait().getNanos());
    assertTrue(((DecideApprovalRequest) requests.get(3)).getApprove());
    DecideApprovalRequest reject = (DecideApprovalRequest) requests.get(4);
    assertFalse(reject.getApprove());
    assertEquals("a2", reject.getApprovalId());
  }

  @Test
  void auditFollowsThePages() {
    Iterator<ListAuditRecordsResponse> pages =
        client.audit(
            ListAuditRecordsRequest.newBuilder()
                .setAction("send")
                .setDecision(AuditDecision.AUDIT_DECISION_PENDING)
                .build());
    List<Long> ids = new ArrayList<>();
    while (pages.hasNext()) {
      pages.next().getRecordsList().forEach(r -> ids.add(r.getId()));
    }
    assertEquals(List.of(3L, 2L, 1L), ids);
    assertEquals(2, requests.size());
    ListAuditRecordsRequest first = (ListAuditRecordsRequest) requests.get(0);
    assertEquals("bot1", first.getAccountId());
    assertEquals("", first.getPageToken());
    assertEquals("send", first.getAction());
    assertEquals(AuditDecision.AUDIT_DECISION_PENDING, first.getDecision());
    ListAuditRecordsRequest second = (ListAuditRecordsRequest) requests.get(1);
    assertEquals("p2", second.getPageToken());
    assertEquals("send", second.getAction());
  }
}
