package dev.onebotgateway.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import com.google.rpc.Code;
import com.google.rpc.ErrorInfo;
import dev.onebotgateway.v1.DownloadGroupFileRequest;
import dev.onebotgateway.v1.DownloadGroupFileResponse;
import dev.onebotgateway.v1.DownloadMediaHeader;
import dev.onebotgateway.v1.EssenceMessage;
import dev.onebotgateway.v1.GroupFile;
import dev.onebotgateway.v1.GroupFolder;
import dev.onebotgateway.v1.GroupServiceGrpc;
import dev.onebotgateway.v1.KickMemberRequest;
import dev.onebotgateway.v1.KickMemberResponse;
import dev.onebotgateway.v1.ListEssenceRequest;
import dev.onebotgateway.v1.ListEssenceResponse;
import dev.onebotgateway.v1.ListGroupFilesRequest;
import dev.onebotgateway.v1.ListGroupFilesResponse;
import dev.onebotgateway.v1.MediaKind;
import dev.onebotgateway.v1.MediaServiceGrpc;
import dev.onebotgateway.v1.MediaSummary;
import dev.onebotgateway.v1.MessageServiceGrpc;
import dev.onebotgateway.v1.MuteAllRequest;
import dev.onebotgateway.v1.MuteAllResponse;
import dev.onebotgateway.v1.MuteMemberRequest;
import dev.onebotgateway.v1.MuteMemberResponse;
import dev.onebotgateway.v1.ReactToMessageRequest;
import dev.onebotgateway.v1.ReactToMessageResponse;
import dev.onebotgateway.v1.SendMessageRequest;
import dev.onebotgateway.v1.SendMessageResponse;
import dev.onebotgateway.v1.SetEssenceRequest;
import dev.onebotgateway.v1.SetEssenceResponse;
import dev.onebotgateway.v1.SetMemberCardRequest;
import dev.onebotgateway.v1.SetMemberCardResponse;
import dev.onebotgateway.v1.SetTypingRequest;
import dev.onebotgateway.v1.SetTypingResponse;
import dev.onebotgateway.v1.UploadMediaRequest;
import dev.onebotgateway.v1.UploadMediaResponse;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Offline tests of the group actions (reactions, essence, typing, voice, group files, moderation)
 * and their error predicates, against an in-process fake gateway that records what reaches it.
 */
class GroupActionsTest {
  static final long GROUP = 20000003L;
  static final byte[] FILE_BYTES = new byte[300 * 1024]; // two chunks

  static {
    Arrays.fill(FILE_BYTES, (byte) 7);
  }

  final List<Message> requests = new CopyOnWriteArrayList<>();
  final List<MediaKind> uploadKinds = new CopyOnWriteArrayList<>();
  Server server;
  Client client;

  <T> void answer(Message request, StreamObserver<T> responses, T response) {
    requests.add(request);
    responses.onNext(response);
    responses.onCompleted();
  }

  static <T> void refuse(StreamObserver<T> responses, int code, String reason, Map<String, String> metadata) {
    com.google.rpc.Status status =
        com.google.rpc.Status.newBuilder()
            .setCode(code)
            .setMessage(reason.toLowerCase())
            .addDetails(
                Any.pack(
                    ErrorInfo.newBuilder()
                        .setReason(reason)
                        .setDomain(GatewayException.ERROR_DOMAIN)
                        .putAllMetadata(metadata)
                        .build()))
            .build();
    responses.onError(StatusProto.toStatusRuntimeException(status));
  }

  static String sha256(byte[] data) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
  }

  @SuppressWarnings("unchecked")
  <T extends Message> List<T> seen(Class<T> type) {
    List<T> out = new ArrayList<>();
    for (Message m : requests) {
      if (type.isInstance(m)) {
        out.add((T) m);
      }
    }
    return out;
  }

  @BeforeEach
  void start() throws IOException {
    server =
        Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
            .addService(
                new MessageServiceGrpc.MessageServiceImplBase() {
                  @Override
                  public void reactToMessage(
                      ReactToMessageRequest request, StreamObserver<ReactToMessageResponse> responses) {
                    answer(request, responses, ReactToMessageResponse.newBuilder().setGroupId(GROUP).build());
                  }

                  @Override
                  public void setEssence(SetEssenceRequest request, StreamObserver<SetEssenceResponse> responses) {
                    answer(request, responses, SetEssenceResponse.newBuilder().setGroupId(GROUP).build());
                  }

                  @Override
                  public void listEssence(ListEssenceRequest request, StreamObserver<ListEssenceResponse> responses) {
                    ListEssenceResponse.Builder page = ListEssenceResponse.newBuilder().setGroupId(GROUP);
                    if (request.getPageToken().isEmpty()) {
                      page.addMessages(EssenceMessage.newBuilder().setOperatorId(10001))
                          .addMessages(EssenceMessage.newBuilder().setOperatorId(10001))
                          .setNextPageToken("e2");
                    } else {
                      page.addMessages(EssenceMessage.newBuilder().setOperatorId(10002));
                    }
                    answer(request, responses, page.build());
                  }

                  @Override
                  public void setTyping(SetTypingRequest request, StreamObserver<SetTypingResponse> responses) {
                    if (request.getUserId() == 10003) {
                      requests.add(request);
                      refuse(
                          responses,
                          Code.UNIMPLEMENTED_VALUE,
                          "NOT_SUPPORTED_BY_IMPLEMENTATION",
                          Map.of("implementation", "llonebot", "action", "typing"));
                      return;
                    }
                    answer(request, responses, SetTypingResponse.getDefaultInstance());
                  }

                  @Override
                  public void sendMessage(SendMessageRequest request, StreamObserver<SendMessageResponse> responses) {
                    answer(
                        request,
                        responses,
                        SendMessageResponse.newBuilder()
                            .addMessageIds(1)
                            .setMedia(MediaSummary.newBuilder().setVoices(request.getVoicesCount()))
                            .build());
                  }
                })
            .addService(
                new MediaServiceGrpc.MediaServiceImplBase() {
                  @Override
                  public StreamObserver<UploadMediaRequest> uploadMedia(
                      StreamObserver<UploadMediaResponse> responses) {
                    ByteArrayOutputStream data = new ByteArrayOutputStream();
                    return new StreamObserver<>() {
                      @Override
                      public void onNext(UploadMediaRequest value) {
                        if (value.hasHeader()) {
                          uploadKinds.add(value.getHeader().getKind());
                        } else {
                          data.writeBytes(value.getChunk().toByteArray());
                        }
                      }

                      @Override
                      public void onError(Throwable t) {}

                      @Override
                      public void onCompleted() {
                        try {
                          responses.onNext(
                              UploadMediaResponse.newBuilder()
                                  .setMediaId("v1")
                                  .setSize(data.size())
                                  .setSha256(sha256(data.toByteArray()))
                                  .setMimeType("audio/amr")
                                  .build());
                          responses.onCompleted();
                        } catch (Exception e) {
                          responses.onError(Status.INTERNAL.withCause(e).asRuntimeException());
                        }
                      }
                    };
                  }

                  @Override
                  public void downloadGroupFile(
                      DownloadGroupFileRequest request, StreamObserver<DownloadGroupFileResponse> responses) {
                    requests.add(request);
                    byte[] data = request.getFileId().equals("bad") ? new byte[] {1} : FILE_BYTES;
                    try {
                      responses.onNext(
                          DownloadGroupFileResponse.newBuilder()
                              .setHeader(
                                  DownloadMediaHeader.newBuilder()
                                      .setKind(MediaKind.MEDIA_KIND_FILE)
                                      .setMimeType("text/plain")
                                      .setSize(FILE_BYTES.length)
                                      .setSha256(sha256(FILE_BYTES))
                                      .setFileName("a.txt"))
                              .build());
                    } catch (Exception e) {
                      responses.onError(e);
                      return;
                    }
                    for (int i = 0; i < data.length; i += 256 * 1024) {
                      int end = Math.min(i + 256 * 1024, data.length);
                      responses.onNext(
                          DownloadGroupFileResponse.newBuilder()
                              .setChunk(ByteString.copyFrom(data, i, end - i))
                              .build());
                    }
                    responses.onCompleted();
                  }
                })
            .addService(
                new GroupServiceGrpc.GroupServiceImplBase() {
                  @Override
                  public void listGroupFiles(
                      ListGroupFilesRequest request, StreamObserver<ListGroupFilesResponse> responses) {
                    ListGroupFilesResponse.Builder page = ListGroupFilesResponse.newBuilder().setGroupId(GROUP);
                    if (request.getPageToken().isEmpty()) {
                      page.addFolders(GroupFolder.newBuilder().setFolderId("/d1").setName("资料"))
                          .addFiles(GroupFile.newBuilder().setFileId("f1").setName("a.txt").setSize(FILE_BYTES.length))
                          .setNextPageToken("g2");
                    } else {
                      page.addFiles(GroupFile.newBuilder().setFileId("f2").setName("b.txt").setSize(1));
                    }
                    answer(request, responses, page.build());
                  }

                  @Override
                  public void muteMember(MuteMemberRequest request, StreamObserver<MuteMemberResponse> responses) {
                    requests.add(request);
                    if (request.getUserId() == 10001) {
                      refuse(
                          responses,
                          Code.PERMISSION_DENIED_VALUE,
                          "PROTECTED_MEMBER",
                          Map.of("user_id", "10001", "why", "owner"));
                      return;
                    }
                    refuse(
                        responses,
                        Code.PERMISSION_DENIED_VALUE,
                        "POLICY_DENIED",
                        Map.of("rule", "none", "action", "mute"));
                  }

                  @Override
                  public void muteAll(MuteAllRequest request, StreamObserver<MuteAllResponse> responses) {
                    requests.add(request);
                    refuse(
                        responses,
                        Code.FAILED_PRECONDITION_VALUE,
                        "BOT_NOT_ADMIN",
                        Map.of("group_id", "20000002", "bot_role", "member", "needed_role", "admin"));
                  }

                  @Override
                  public void kickMember(KickMemberRequest request, StreamObserver<KickMemberResponse> responses) {
                    answer(
                        request,
                        responses,
                        KickMemberResponse.newBuilder().setGroupId(GROUP).setUserId(request.getUserId()).build());
                  }

                  @Override
                  public void setMemberCard(
                      SetMemberCardRequest request, StreamObserver<SetMemberCardResponse> responses) {
                    answer(
                        request,
                        responses,
                        SetMemberCardResponse.newBuilder().setGroupId(GROUP).setUserId(request.getUserId()).build());
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
  void reactEssenceAndTypingReachTheGateway() {
    assertEquals(GROUP, client.react(77, "76").getGroupId());
    client.react(77, "128077", true, Client.onBehalfOfMessage(77));
    client.setEssence(77, false, Client.onBehalfOfUser(10001));
    client.setEssence(77, true, null);
    client.setTyping(10001);
    List<ReactToMessageRequest> reacts = seen(ReactToMessageRequest.class);
    assertEquals("bot1", reacts.get(0).getAccountId());
    assertEquals(77, reacts.get(0).getMessageId());
    assertEquals("76", reacts.get(0).getEmojiId());
    assertFalse(reacts.get(0).getRemove() || reacts.get(0).hasOnBehalfOf());
    assertTrue(reacts.get(1).getRemove());
    assertEquals(77, reacts.get(1).getOnBehalfOf().getMessageId());
    List<SetEssenceRequest> essence = seen(SetEssenceRequest.class);
    assertEquals(10001, essence.get(0).getOnBehalfOf().getUserId());
    assertTrue(essence.get(1).getRemove());
    assertEquals(10001, seen(SetTypingRequest.class).get(0).getUserId());
  }

  @Test
  void argumentsAreCheckedBeforeAnyCall() {
    Map<String, Runnable> cases =
        Map.of(
            "messageId", () -> client.react(0, "76"),
            "emojiId", () -> client.react(1, "x".repeat(33)),
            "userId", () -> client.setTyping(0),
            "duration", () -> client.muteMember(null, 10003, Client.MAX_MUTE.plusSeconds(1)),
            "card", () -> client.setMemberCard(null, 10003, "名".repeat(21)),
            "fileId",
                () -> {
                  try {
                    client.downloadGroupFile(null, "");
                  } catch (IOException e) {
                    throw new AssertionError(e);
                  }
                });
    cases.forEach(
        (field, call) -> {
          ClientException e = assertThrows(ClientException.class, call::run, field);
          assertEquals(java.util.Optional.of("INVALID_REQUEST"), e.reason());
          assertEquals(java.util.Optional.of(field), e.field());
        });
    assertThrows(ClientException.class, () -> client.react(1, ""));
    assertThrows(ClientException.class, () -> client.muteMember(null, 10003, Duration.ofSeconds(-1)));
    assertThrows(ClientException.class, () -> client.kickMember(null, 0, false));
    assertTrue(requests.isEmpty(), requests.toString());
  }

  @Test
  void listEssenceAndGroupFilesFollowThePages() {
    List<EssenceMessage> essence = client.essenceMessages(GROUP);
    assertEquals(List.of(10001L, 10001L, 10002L), essence.stream().map(EssenceMessage::getOperatorId).toList());
    Iterator<ListGroupFilesResponse> pages =
        client.listGroupFiles(ListGroupFilesRequest.newBuilder().setFolderId("/d1").setPageSize(100).build());
    assertEquals("资料", pages.next().getFolders(0).getName());
    assertEquals("f2", pages.next().getFiles(0).getFileId());
    assertFalse(pages.hasNext());
    assertEquals(List.of("f1", "f2"), client.groupFiles(GROUP, "").stream().map(GroupFile::getFileId).toList());
    List<ListEssenceRequest> essenceRequests = seen(ListEssenceRequest.class);
    assertEquals("bot1", essenceRequests.get(0).getAccountId());
    assertEquals(GROUP, essenceRequests.get(0).getGroupId());
    assertEquals("e2", essenceRequests.get(1).getPageToken());
    List<ListGroupFilesRequest> fileRequests = seen(ListGroupFilesRequest.class);
    assertEquals("/d1", fileRequests.get(0).getFolderId());
    assertEquals(100, fileRequests.get(0).getPageSize());
    assertEquals("g2", fileRequests.get(1).getPageToken());
    assertEquals(100, fileRequests.get(1).getPageSize());
  }

  @Test
  void groupFilesDownloadIntoMemoryAndAFile(@TempDir Path dir) throws IOException {
    Downloaded got = client.downloadGroupFile(GROUP, "f1");
    assertArrayEquals(FILE_BYTES, got.data());
    assertEquals("a.txt", got.header().getFileName());
    List<long[]> progress = new ArrayList<>();
    DownloadMediaHeader header =
        client.downloadGroupFileTo(null, "f1", dir.resolve("a.txt"), (r, t) -> progress.add(new long[] {r, t}));
    assertEquals(FILE_BYTES.length, header.getSize());
    assertArrayEquals(FILE_BYTES, Files.readAllBytes(dir.resolve("a.txt")));
    assertEquals(2, progress.size());
    assertArrayEquals(new long[] {FILE_BYTES.length, FILE_BYTES.length}, progress.get(1));
    IOException bad =
        assertThrows(IOException.class, () -> client.downloadGroupFileTo(null, "bad", dir.resolve("bad.txt"), null));
    assertTrue(bad.getMessage().contains("integrity"), bad.getMessage());
    assertFalse(Files.exists(dir.resolve("bad.txt")) || Files.exists(dir.resolve("bad.txt.part")));
    List<DownloadGroupFileRequest> downloads = seen(DownloadGroupFileRequest.class);
    assertEquals(GROUP, downloads.get(0).getGroupId());
    assertFalse(downloads.get(1).hasGroupId());
  }

  @Test
  void moderationAndTheErrorPredicates() {
    GatewayException denied =
        assertThrows(
            GatewayException.class,
            () -> client.muteMember(GROUP, 10003, Duration.ofMinutes(10), Client.onBehalfOfUser(10002)));
    GatewayException isProtected =
        assertThrows(GatewayException.class, () -> client.muteMember(null, 10001, Duration.ofMillis(500)));
    GatewayException notAdmin = assertThrows(GatewayException.class, () -> client.muteAll(20000002L, true));
    GatewayException unsupported = assertThrows(GatewayException.class, () -> client.setTyping(10003));
    assertEquals(io.grpc.Status.Code.PERMISSION_DENIED, denied.code());
    assertTrue(denied.isPolicyDenied());
    assertEquals("none", denied.metadata().get("rule"));
    assertTrue(isProtected.isProtectedMember());
    assertTrue(notAdmin.isBotNotAdmin());
    assertEquals("admin", notAdmin.metadata().get("needed_role"));
    assertEquals(io.grpc.Status.Code.UNIMPLEMENTED, unsupported.code());
    assertTrue(unsupported.isNotSupportedByImplementation());
    assertFalse(denied.isBotNotAdmin() || unsupported.isProtectedMember() || notAdmin.isPolicyDenied());
    assertEquals(10003, client.kickMember(GROUP, 10003, true).getUserId());
    assertEquals(10003, client.setMemberCard(GROUP, 10003, "新名片").getUserId());
    List<MuteMemberRequest> mutes = seen(MuteMemberRequest.class);
    assertEquals(GROUP, mutes.get(0).getGroupId());
    assertEquals(600, mutes.get(0).getDurationSecs());
    assertEquals(10002, mutes.get(0).getOnBehalfOf().getUserId());
    assertEquals(1, mutes.get(1).getDurationSecs()); // a part second rounds up
    assertFalse(mutes.get(1).hasGroupId());
    assertTrue(seen(MuteAllRequest.class).get(0).getEnable());
    assertTrue(seen(KickMemberRequest.class).get(0).getRejectRejoin());
    assertEquals("新名片", seen(SetMemberCardRequest.class).get(0).getCard());
  }

  @Test
  void aVoiceIsUploadedAsARecord(@TempDir Path dir) throws IOException {
    Path voice = dir.resolve("hello.amr");
    Files.write(voice, "#!AMR\n".getBytes());
    SendMessageResponse sent = client.send(OutgoingMessage.toGroup(GROUP).text("听").voice(Media.path(voice)));
    assertEquals(1, sent.getMedia().getVoices());
    ClientException two =
        assertThrows(
            ClientException.class,
            () -> client.send(OutgoingMessage.toGroup(GROUP).voice(Media.path(voice)).voice(Media.path(voice))));
    assertEquals(java.util.Optional.of("voices"), two.field());
    assertEquals(List.of(MediaKind.MEDIA_KIND_RECORD), uploadKinds);
    assertEquals("v1", seen(SendMessageRequest.class).get(0).getVoices(0).getMediaId());
  }
}
