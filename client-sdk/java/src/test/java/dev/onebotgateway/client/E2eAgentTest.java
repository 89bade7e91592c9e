package dev.onebotgateway.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onebotgateway.v1.Account;
import dev.onebotgateway.v1.ChatMessage;
import dev.onebotgateway.v1.Event;
import dev.onebotgateway.v1.EventKind;
import dev.onebotgateway.v1.GetMessageResponse;
import dev.onebotgateway.v1.MediaSource;
import dev.onebotgateway.v1.MessageServiceGrpc;
import dev.onebotgateway.v1.SendMessageRequest;
import dev.onebotgateway.v1.SendMessageResponse;
import dev.onebotgateway.v1.StreamEventsRequest;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * End-to-end tests of the agent helpers and the checks before a send, against the real gateway
 * (scripts/sdk-tests.sh sets ONEBOT_GATEWAY_ADDR and ONEBOT_GATEWAY_SANDBOX_URL).
 */
class E2eAgentTest {
  static final long PLAYGROUND = 20000003L;
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

  /** Makes a sandbox user say something (the sandbox's own HTTP action); the message id. */
  static long inject(Long groupId, String segmentsJson) throws Exception {
    String url = System.getenv("ONEBOT_GATEWAY_SANDBOX_URL");
    assertNotNull(url, "ONEBOT_GATEWAY_SANDBOX_URL is not set: run ./scripts/sdk-tests.sh java");
    String body =
        "{\"user_id\": 10001, " + (groupId == null ? "" : "\"group_id\": " + groupId + ", ")
            + "\"message\": " + segmentsJson + "}";
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(url + "/sandbox_inject_message"))
                    .header("content-type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    Matcher id = Pattern.compile("\"message_id\"\\s*:\\s*(-?\\d+)").matcher(response.body());
    assertTrue(response.body().contains("\"ok\"") && id.find(), response.body());
    return Long.parseLong(id.group(1));
  }

  static String at(String qq, String text) {
    return "[{\"type\": \"at\", \"data\": {\"qq\": \"" + qq + "\"}}, {\"type\": \"text\", \"data\": {\"text\": \""
        + text + "\"}}]";
  }

  static Event eventOf(long messageId) {
    try (EventStream events =
        client.events(
            StreamEventsRequest.newBuilder().addKinds(EventKind.EVENT_KIND_MESSAGE).setAfterSequence(0).build())) {
      while (events.hasNext()) {
        Event event = events.next();
        if (event.getMessage().getMessage().getMessageId() == messageId) {
          return event;
        }
      }
    }
    throw new AssertionError("no event of message " + messageId);
  }

  static long latest() {
    var page = client.history(Client.groupChat(PLAYGROUND), 1, null);
    return page.getMessages(page.getMessagesCount() - 1).getMessageId();
  }

  @Test
  void limitsAreCheckedBeforeUploading() throws IOException {
    long before = latest();
    ClientException refused = ReadmeExamples.limits(client, Path.of(System.getenv("ONEBOT_GATEWAY_TEST_IMAGE")));
    assertEquals("TOO_MANY_IMAGES", refused.reason().orElseThrow());
    assertEquals("images", refused.field().orElseThrow());
    // The same request past the SDK's check is what the gateway refuses, for the same reason.
    SendMessageRequest.Builder request = SendMessageRequest.newBuilder().setGroupId(PLAYGROUND);
    for (int i = 0; i < 5; i++) {
      request.addImages(MediaSource.newBuilder().setMediaId("m"));
    }
    StatusRuntimeException err =
        assertThrows(
            StatusRuntimeException.class,
            () -> MessageServiceGrpc.newBlockingStub(client.channel()).sendMessage(request.build()));
    assertEquals(refused.reason(), GatewayException.from(err).reason());
    assertEquals(before, latest());
  }

  @Test
  void anAgentAnswersAMentionInItsChat() throws Exception {
    String bot = "";
    for (Account a : client.accounts()) {
      if (a.getAccountId().equals("default")) {
        bot = Long.toString(a.getSelfId());
      }
    }
    inject(PLAYGROUND, at("all", " 全体注意"));
    inject(PLAYGROUND, at("10002", " 不是叫你"));
    long asked = inject(PLAYGROUND, at(bot, " 在吗"));
    SendMessageResponse answer = ReadmeExamples.agent(client, 0L);
    assertEquals(PLAYGROUND, answer.getGroupId());
    GetMessageResponse reply = client.getMessage(answer.getMessageIds(0));
    assertEquals(Long.toString(asked), reply.getMessage().getSegments(0).getReply().getId());
    assertEquals("在的", reply.getMessage().getText());
    // A private message is answered privately, quoting it.
    long privately = inject(null, at(bot, " 私聊"));
    Event event = eventOf(privately);
    assertTrue(Messages.mentionsMe(event, false));
    SendMessageResponse sent = client.reply(event, "私聊收到");
    assertEquals(0, sent.getGroupId());
    assertEquals(10001, sent.getUserId());
    ChatMessage answered = client.getMessage(sent.getMessageIds(0)).getMessage();
    assertEquals(Long.toString(privately), answered.getSegments(0).getReply().getId());
  }

  @Test
  void aMentionOfEveryoneCountsOnlyWhenAsked() throws Exception {
    Event event = eventOf(inject(PLAYGROUND, at("all", " 开会了")));
    assertFalse(Messages.mentionsMe(event, false));
    assertTrue(Messages.mentionsMe(event, true));
  }
}
