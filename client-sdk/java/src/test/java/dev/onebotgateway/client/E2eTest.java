package dev.onebotgateway.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.onebotgateway.v1.Account;
import dev.onebotgateway.v1.CallToolResponse;
import dev.onebotgateway.v1.ChatMessage;
import dev.onebotgateway.v1.Event;
import dev.onebotgateway.v1.EventKind;
import dev.onebotgateway.v1.StreamEventsRequest;
import dev.onebotgateway.v1.PokeMemberResponse;
import dev.onebotgateway.v1.SearchMessagesRequest;
import dev.onebotgateway.v1.SearchMessagesResponse;
import dev.onebotgateway.v1.SendMessageResponse;
import dev.onebotgateway.v1.ErrorReason;
import dev.onebotgateway.v1.GetHistoryResponse;
import dev.onebotgateway.v1.ListGroupMembersResponse;
import dev.onebotgateway.v1.ListGroupsResponse;
import dev.onebotgateway.v1.MediaKind;
import io.grpc.Status;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** End-to-end: the Java SDK against a real gateway (scripts/sdk-tests.sh sets ONEBOT_GATEWAY_ADDR). */
class E2eTest {
  static Client client;

  @BeforeAll
  static void connect() throws IOException {
    assertNotNull(
        System.getenv("ONEBOT_GATEWAY_ADDR"), "ONEBOT_GATEWAY_ADDR is not set: run ./scripts/sdk-tests.sh java");
    client = ReadmeExamples.connect();
  }

  @AfterAll
  static void close() {
    client.close();
  }

  @Test
  void health() {
    assertEquals("SERVING", ReadmeExamples.health(client));
    GatewayException err = assertThrows(GatewayException.class, () -> client.health("no.such.Service"));
    assertEquals(Status.Code.NOT_FOUND, err.code());
  }

  static final long PLAYGROUND = 20000003L;

  @Test
  void accounts() {
    List<Account> accounts = ReadmeExamples.accounts(client);
    Account account = accounts.stream().filter(a -> a.getAccountId().equals("default")).findFirst().orElseThrow();
    assertTrue(account.getGroupsList().contains(PLAYGROUND));
    assertEquals("SERVING", client.health(Client.ACCOUNT_HEALTH_SERVICE_PREFIX + "default"));
  }

  @Test
  void historyPagesThePlaygroundGroup() {
    GetHistoryResponse page = ReadmeExamples.history(client);
    assertEquals("group:" + PLAYGROUND, page.getTarget());
    assertEquals(5, page.getMessagesCount());
    assertEquals(5, page.getRendered().split("\n").length);
    GetHistoryResponse older = client.history(Client.groupChat(PLAYGROUND), 5, page.getNextAnchorMessageId());
    Set<Long> newer = new HashSet<>();
    page.getMessagesList().forEach(m -> newer.add(m.getMessageId()));
    assertFalse(older.getMessagesList().isEmpty());
    assertTrue(older.getMessagesList().stream().noneMatch(m -> newer.contains(m.getMessageId())));
  }

  @Test
  void membersAndGroups() {
    ListGroupMembersResponse members = ReadmeExamples.members(client);
    assertEquals(36, members.getTotal());
    assertEquals(5, members.getShown());
    assertEquals(10001L, members.getMembers(0).getUserId());
    assertEquals("owner", members.getMembers(0).getRole());
    assertTrue(members.getRendered().endsWith("（仅显示前 5 / 共 36 名成员）"));
    ListGroupsResponse groups = ReadmeExamples.groups(client);
    assertTrue(groups.getGroupsList().stream().anyMatch(g -> g.getGroupId() == PLAYGROUND && g.getWhitelisted()));
  }

  @Test
  void upload5MiBImage() throws IOException {
    Path path = Path.of(System.getenv("ONEBOT_GATEWAY_TEST_IMAGE"));
    long size = Files.size(path);
    assertTrue(size >= 5 * 1024 * 1024);
    Uploaded uploaded = ReadmeExamples.upload(client, path);
    assertFalse(uploaded.mediaId().isEmpty());
    assertEquals(size, uploaded.size());
    assertEquals("image/png", uploaded.mimeType());
  }

  @Test
  void downloadReceivedAndUploadedMedia(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    Downloaded picture = ReadmeExamples.download(client, dir);
    assertNotNull(picture);
    assertEquals("image/png", picture.header().getMimeType());
    String sha =
        java.util.HexFormat.of()
            .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(picture.data()));
    assertEquals(picture.header().getSha256(), sha);
    assertTrue(java.util.Arrays.equals(picture.data(), Files.readAllBytes(dir.resolve("picture"))));
    byte[] data = "%PDF-1.4 round trip".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    Uploaded uploaded = client.upload(data, "r.pdf", MediaKind.MEDIA_KIND_FILE);
    assertTrue(java.util.Arrays.equals(data, client.download(MediaRef.id(uploaded.mediaId())).data()));
    GatewayException err =
        assertThrows(
            GatewayException.class,
            () -> client.downloadTo(MediaRef.id("r_0123456789abcdef_1_0"), dir.resolve("missing"), null));
    assertEquals(Status.Code.NOT_FOUND, err.code());
    assertEquals("MEDIA_NOT_FOUND", err.reason().orElse(""));
    assertFalse(Files.exists(dir.resolve("missing.part")));
  }

  @Test
  void errorsCarryReasonMetadataAndField() throws IOException {
    GatewayException err = ReadmeExamples.errors(client);
    assertNotNull(err);
    assertEquals(Status.Code.INVALID_ARGUMENT, err.code());
    assertEquals("INVALID_REQUEST", err.reason().orElseThrow());
    assertEquals(ErrorReason.ERROR_REASON_INVALID_REQUEST, err.errorReason());
    assertEquals(GatewayException.ERROR_DOMAIN, err.domain().orElseThrow());
    assertEquals("group_id", err.fieldViolations().get(0).field());
    try (Client other = Client.builder(System.getenv("ONEBOT_GATEWAY_ADDR")).accountId("nope").build()) {
      GatewayException e =
          assertThrows(GatewayException.class, () -> other.history(Client.groupChat(PLAYGROUND), 5, null));
      assertEquals(Status.Code.FAILED_PRECONDITION, e.code());
      assertEquals("ACCOUNT_NOT_CONFIGURED", e.reason().orElseThrow());
      assertEquals("nope", e.metadata().get("account_id"));
    }
    GatewayException mismatch =
        assertThrows(
            GatewayException.class, () -> client.upload(new byte[1024], "x.png", MediaKind.MEDIA_KIND_IMAGE));
    assertEquals("MEDIA_TYPE_MISMATCH", mismatch.reason().orElseThrow());
  }

  @Test
  void unreachableGatewayIsAGatewayException() throws IOException {
    try (Client down = Client.builder("http://127.0.0.1:1").timeout(Duration.ofSeconds(5)).build()) {
      GatewayException err = assertThrows(GatewayException.class, down::accounts);
      assertEquals(Status.Code.UNAVAILABLE, err.code());
    }
  }

  @Test
  void sendA5MiBImageAndReadItBack() throws IOException {
    SendMessageResponse sent = ReadmeExamples.send(client, Path.of(System.getenv("ONEBOT_GATEWAY_TEST_IMAGE")));
    assertEquals(PLAYGROUND, sent.getGroupId());
    assertFalse(sent.getQueued());
    assertEquals(1, sent.getMedia().getImages());
    assertEquals(2, sent.getMessageIdsCount());
    GetHistoryResponse page = client.history(Client.groupChat(PLAYGROUND), 10, null);
    ChatMessage text =
        page.getMessagesList().stream().filter(m -> m.getMessageId() == sent.getMessageIds(0)).findFirst().orElseThrow();
    assertEquals("hello from Java", text.getText());
    ChatMessage image =
        page.getMessagesList().stream().filter(m -> m.getMessageId() == sent.getMessageIds(1)).findFirst().orElseThrow();
    assertTrue(image.getSegmentsList().stream().anyMatch(s -> s.hasImage()));
  }

  @Test
  void conversationReplyMentionPrivateRecallForward() throws IOException {
    var reply = ReadmeExamples.conversation(client);
    var kinds = reply.getMessage().getSegmentsList().stream().map(seg -> seg.getKindCase().name()).toList();
    assertEquals(List.of("REPLY", "AT", "TEXT"), kinds);
    assertTrue(reply.getMessage().getSegments(0).getReply().getQuoted().getMessageId() != 0);
    assertTrue(reply.getRendered().contains("[回复 "), reply.getRendered());
    assertFalse(reply.getMessage().getText().contains("回复"));
    GetHistoryResponse privately = client.history(Client.privateChat(10001), 5, null);
    assertTrue(privately.getMessagesList().stream().noneMatch(m -> m.getText().equals("私聊一句")));
    GatewayException tooOld =
        assertThrows(GatewayException.class, () -> client.recall(privately.getMessages(0).getMessageId()));
    assertEquals(Status.Code.FAILED_PRECONDITION, tooOld.code());
    assertEquals("ONEBOT_ACTION_FAILED", tooOld.reason().orElse(""));
    GatewayException missing = assertThrows(GatewayException.class, () -> client.getForward("no-such-bundle"));
    assertEquals("MESSAGE_NOT_FOUND", missing.reason().orElse(""));
    GatewayException denied =
        assertThrows(GatewayException.class, () -> client.send(OutgoingMessage.toUser(10002).text("x")));
    assertEquals("USER_NOT_ALLOWED", denied.reason().orElse(""));
  }

  @Test
  void poke() {
    PokeMemberResponse poked = ReadmeExamples.poke(client);
    assertEquals(PLAYGROUND, poked.getGroupId());
    assertEquals(10001L, poked.getUserId());
  }

  @Test
  void toolCall() {
    CallToolResponse result = ReadmeExamples.tools(client);
    assertFalse(result.getIsError(), result.getText());
    assertTrue(result.getDetailsJson().contains("\"status\":\"ok\""), result.getDetailsJson());
    assertTrue(result.getDetailsJson().contains("\"total\":36"), result.getDetailsJson());
    assertEquals(3, result.getText().split("\n").length);
    assertTrue(client.callTool("qq_get_group_members", "{}").getIsError());
  }

  @Test
  void eventsReplayAndFollow() throws Exception {
    client.poke(PLAYGROUND, 10002);
    Event event = ReadmeExamples.events(client);
    assertTrue(event.getSequence() >= 1);
    assertTrue(event.hasPoke());
    assertEquals(PLAYGROUND, event.getPoke().getGroupId());
  }

  /**
   * The stream through nginx survives the proxy being killed and restarted: it reconnects from
   * the last event it returned, and every event arrives once.
   */
  @Test
  void eventsResumeAcrossAProxyRestart() throws Exception {
    String proxy = System.getenv("ONEBOT_GATEWAY_PROXY_ADDR");
    String restart = System.getenv("ONEBOT_GATEWAY_PROXY_RESTART");
    assertNotNull(proxy, "ONEBOT_GATEWAY_PROXY_ADDR is not set: run ./scripts/sdk-tests.sh java");
    assertNotNull(restart);
    try (Client viaProxy = Client.builder(proxy).build();
        EventStream stream =
            viaProxy.events(
                StreamEventsRequest.newBuilder()
                    .addKinds(EventKind.EVENT_KIND_POKE)
                    .setAfterSequence(0)
                    .build())) {
      client.poke(PLAYGROUND, 10015);
      Event first = stream.next();
      while (first.getPoke().getTargetId() != 10015) {
        first = stream.next();
      }
      Process p = new ProcessBuilder(restart).inheritIO().start();
      assertEquals(0, p.waitFor(), "restarting the proxy");
      client.poke(PLAYGROUND, 10016);
      long last = first.getSequence();
      while (true) {
        Event e = stream.next();
        assertTrue(e.getSequence() > last, "in order, once");
        assertTrue(e.getPoke().getTargetId() != 10015, "the event before the restart came again");
        last = e.getSequence();
        if (e.getPoke().getTargetId() == 10016) {
          break;
        }
      }
      assertTrue(stream.reconnects() >= 1);
    }
  }

  @Test
  void searchFindsWhatWasSent() throws Exception {
    SendMessageResponse sent = client.send(OutgoingMessage.toGroup(PLAYGROUND).text("Java 明天下午开会"));
    List<SearchMessagesResponse> pages = ReadmeExamples.search(client);
    List<ChatMessage> found = pages.stream().flatMap(p -> p.getMessagesList().stream()).toList();
    assertTrue(found.stream().anyMatch(m -> m.getMessageId() == sent.getMessageIds(0)), found.toString());
    assertTrue(found.stream().allMatch(m -> m.getText().contains("开会")), found.toString());
    GatewayException err =
        assertThrows(
            GatewayException.class,
            () -> client.search(SearchMessagesRequest.newBuilder().setChat(Client.groupChat(0)).build()).next());
    assertEquals(java.util.Optional.of("INVALID_REQUEST"), err.reason());
  }

  @Test
  void groupFilesListAndDownload(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws IOException {
    java.util.Map<dev.onebotgateway.v1.GroupFile, Downloaded> files = ReadmeExamples.groupFiles(client, dir);
    assertFalse(files.isEmpty(), "group " + PLAYGROUND + " has files");
    dev.onebotgateway.v1.GroupFile last = null;
    for (var entry : files.entrySet()) {
      assertEquals(entry.getKey().getSize(), entry.getValue().data().length, entry.getKey().getName());
      last = entry.getKey();
    }
    assertEquals(last.getSize(), java.nio.file.Files.size(dir.resolve("group-file")));
  }

  @Test
  void reactAndListEssence() throws IOException {
    java.util.List<dev.onebotgateway.v1.EssenceMessage> essence = ReadmeExamples.react(client);
    assertFalse(essence.isEmpty(), "group " + PLAYGROUND + " has essence messages");
    dev.onebotgateway.v1.ListEssenceResponse first =
        client
            .listEssence(dev.onebotgateway.v1.ListEssenceRequest.newBuilder().setGroupId(PLAYGROUND).setPageSize(1).build())
            .next();
    assertEquals(PLAYGROUND, first.getGroupId());
    assertTrue(first.getMessagesCount() <= 1);
  }

  @Test
  void typingNeedsAWhitelistedUser() {
    GatewayException denied = assertThrows(GatewayException.class, () -> client.setTyping(10002));
    assertEquals(Status.Code.PERMISSION_DENIED, denied.code());
    assertEquals(java.util.Optional.of("USER_NOT_ALLOWED"), denied.reason());
    ReadmeExamples.typing(client);
  }

  @Test
  void moderationWithoutAPolicyRuleIsDenied() {
    GatewayException refused = ReadmeExamples.moderation(client);
    assertNotNull(refused, "no policy rule names `mute`");
    assertEquals(Status.Code.PERMISSION_DENIED, refused.code());
    assertTrue(refused.isPolicyDenied());
    assertEquals("none", refused.metadata().get("rule"));
    for (org.junit.jupiter.api.function.Executable call :
        java.util.List.<org.junit.jupiter.api.function.Executable>of(
            () -> client.muteAll(PLAYGROUND, true),
            () -> client.kickMember(PLAYGROUND, 10003, false),
            () -> client.setMemberCard(PLAYGROUND, 10003, "新名片"))) {
      GatewayException err = assertThrows(GatewayException.class, call);
      assertTrue(err.isPolicyDenied(), err.toString());
    }
  }
}
