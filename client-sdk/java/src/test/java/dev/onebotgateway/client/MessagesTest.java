package dev.onebotgateway.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onebotgateway.v1.AtSegment;
import dev.onebotgateway.v1.ChatMessage;
import dev.onebotgateway.v1.Event;
import dev.onebotgateway.v1.MediaServiceGrpc;
import dev.onebotgateway.v1.MessageEvent;
import dev.onebotgateway.v1.MessageServiceGrpc;
import dev.onebotgateway.v1.PokeEvent;
import dev.onebotgateway.v1.Segment;
import dev.onebotgateway.v1.SendMessageRequest;
import dev.onebotgateway.v1.SendMessageResponse;
import dev.onebotgateway.v1.TextSegment;
import dev.onebotgateway.v1.UploadMediaRequest;
import dev.onebotgateway.v1.UploadMediaResponse;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Offline tests of the agent helpers and the checks before a send, against an in-process fake
 * gateway (a real gRPC server on a loopback port) that records what reaches it.
 */
class MessagesTest {
  static final long BOT = 3889000000L;
  static final long GROUP = 20000003L;

  final AtomicInteger uploads = new AtomicInteger();
  final List<SendMessageRequest> sent = new CopyOnWriteArrayList<>();
  Server server;
  Client client;
  Path png;

  @BeforeEach
  void start(@TempDir Path dir) throws IOException {
    png = dir.resolve("a.png");
    Files.write(png, new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0});
    server =
        Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
            .addService(
                new MediaServiceGrpc.MediaServiceImplBase() {
                  @Override
                  public StreamObserver<UploadMediaRequest> uploadMedia(
                      StreamObserver<UploadMediaResponse> responses) {
                    MessageDigest digest = sha256();
                    long[] size = {0};
                    return new StreamObserver<>() {
                      @Override
                      public void onNext(UploadMediaRequest request) {
                        digest.update(request.getChunk().toByteArray());
                        size[0] += request.getChunk().size();
                      }

                      @Override
                      public void onError(Throwable t) {}

                      @Override
                      public void onCompleted() {
                        int n = uploads.incrementAndGet();
                        responses.onNext(
                            UploadMediaResponse.newBuilder()
                                .setMediaId("m" + n)
                                .setSize(size[0])
                                .setSha256(HexFormat.of().formatHex(digest.digest()))
                                .build());
                        responses.onCompleted();
                      }
                    };
                  }
                })
            .addService(
                new MessageServiceGrpc.MessageServiceImplBase() {
                  @Override
                  public void sendMessage(
                      SendMessageRequest request, StreamObserver<SendMessageResponse> responses) {
                    sent.add(request);
                    if (request.getText().equals("refuse")) {
                      responses.onError(Status.PERMISSION_DENIED.withDescription("no").asRuntimeException());
                      return;
                    }
                    responses.onNext(SendMessageResponse.newBuilder().addMessageIds(sent.size()).build());
                    responses.onCompleted();
                  }
                })
            .build()
            .start();
    client = Client.builder("http://127.0.0.1:" + server.getPort()).build();
  }

  @AfterEach
  void stop() {
    client.close();
    server.shutdownNow();
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  void refused(OutgoingMessage message, String reason, String field) {
    ClientException err = assertThrows(ClientException.class, () -> client.send(message));
    assertEquals(reason, err.reason().orElse(null), err.getMessage());
    assertEquals(field, err.field().orElse(null), err.getMessage());
  }

  OutgoingMessage withImages(int n) {
    OutgoingMessage m = OutgoingMessage.toGroup(GROUP);
    for (int i = 0; i < n; i++) {
      m.image(Media.path(png));
    }
    return m;
  }

  @Test
  void aSendOverTheLimitsUploadsNothing() {
    refused(withImages(5), "TOO_MANY_IMAGES", "images");
    refused(OutgoingMessage.toGroup(GROUP).video(Media.path(png)).video(Media.path(png)), "TOO_MANY_VIDEOS", "videos");
    refused(withImages(1).text("x".repeat(Messages.MAX_TEXT_CHARS + 1)), "TEXT_TOO_LONG", "text");
    OutgoingMessage many = withImages(1);
    for (int i = 0; i < 21; i++) {
      many.mention(10001 + i);
    }
    refused(many, "INVALID_REQUEST", "mentions");
    refused(withImages(1).mention(10001).mention(0), "INVALID_REQUEST", "mentions[1]");
    refused(withImages(1).replyTo(0), "INVALID_REQUEST", "replyTo");
    refused(withImages(1).idempotencyKey("k".repeat(129)), "INVALID_REQUEST", "idempotencyKey");
    refused(OutgoingMessage.toGroup(GROUP).text("   "), "EMPTY_MESSAGE", null);
    refused(withImages(1).image(Media.path(png.resolveSibling("missing.png"))), null, "images[1]");
    assertEquals(0, uploads.get());
    assertEquals(0, sent.size());
  }

  @Test
  void limitsCountCharactersAndASendAtTheLimitsGoesThrough() throws IOException {
    OutgoingMessage m = withImages(4).text("😀".repeat(Messages.MAX_TEXT_CHARS));
    for (int i = 0; i < 20; i++) {
      m.mention(10001 + i);
    }
    client.send(m);
    assertEquals(4, uploads.get());
    assertEquals(List.of("m1", "m2", "m3", "m4"), sent.get(0).getImagesList().stream().map(s -> s.getMediaId()).toList());
  }

  @Test
  void callsThrowGatewayExceptionAndArgumentsClientException() {
    GatewayException call =
        assertThrows(GatewayException.class, () -> client.send(OutgoingMessage.toGroup(1).text("refuse")));
    assertEquals(Status.Code.PERMISSION_DENIED, call.code());
    ClientException arg =
        assertThrows(ClientException.class, () -> client.send(OutgoingMessage.reply().text("x")));
    assertInstanceOf(IllegalArgumentException.class, arg);
  }

  static Segment at(long userId, boolean all) {
    return Segment.newBuilder().setAt(AtSegment.newBuilder().setUserId(userId).setAll(all)).build();
  }

  static Segment text(String s) {
    return Segment.newBuilder().setText(TextSegment.newBuilder().setText(s)).build();
  }

  static Event messageEvent(Consumer<ChatMessage.Builder> chat, long id, Segment... segments) {
    ChatMessage.Builder message = ChatMessage.newBuilder().setMessageId(id).addAllSegments(List.of(segments));
    chat.accept(message);
    return Event.newBuilder()
        .setSequence(5)
        .setSelfId(BOT)
        .setMessage(MessageEvent.newBuilder().setMessage(message))
        .build();
  }

  static final Consumer<ChatMessage.Builder> IN_GROUP = m -> m.setChat(Client.groupChat(GROUP));
  static final Consumer<ChatMessage.Builder> PRIVATELY = m -> m.setChat(Client.privateChat(10001));

  @Test
  void mentionsMe() {
    assertTrue(Messages.mentionsMe(messageEvent(IN_GROUP, 1, at(BOT, false), text(" 在吗")), false));
    assertFalse(Messages.mentionsMe(messageEvent(IN_GROUP, 1, at(10002, false)), false));
    assertFalse(Messages.mentionsMe(messageEvent(IN_GROUP, 1, text("@3889000000 is only text")), false));
    // @全体成员 addresses everyone: a mention of the bot only when asked for.
    assertFalse(Messages.mentionsMe(messageEvent(IN_GROUP, 1, at(0, true)), false));
    assertTrue(Messages.mentionsMe(messageEvent(IN_GROUP, 1, at(0, true)), true));
    Event poke = Event.newBuilder().setSelfId(BOT).setPoke(PokeEvent.newBuilder().setTargetId(BOT)).build();
    assertFalse(Messages.mentionsMe(poke, true));
    assertTrue(Messages.mentionsMe(ChatMessage.newBuilder().addSegments(at(BOT, false)).build(), BOT, false));
  }

  @Test
  void replyAnswersInTheChatOfTheMessage() throws IOException {
    client.reply(messageEvent(IN_GROUP, 77, at(BOT, false)), "收到");
    Event privately = messageEvent(PRIVATELY, 88, text("hi"));
    client.reply(privately.getMessage().getMessage(), true, OutgoingMessage.reply().text("私聊").mention(10001));
    client.reply(privately.getMessage().getMessage(), false, OutgoingMessage.reply().text("no quote"));
    assertThrows(ClientException.class, () -> client.reply(Event.newBuilder().setPoke(PokeEvent.getDefaultInstance()).build(), "x"));
    assertThrows(ClientException.class, () -> client.reply(messageEvent(IN_GROUP, 0, text("node")), "x"));
    assertThrows(
        ClientException.class,
        () -> client.reply(privately.getMessage().getMessage(), true, OutgoingMessage.toGroup(1).text("x")));
    assertEquals(3, sent.size());
    SendMessageRequest first = sent.get(0);
    assertEquals(List.of(GROUP, false, 77L, "收到"), List.of(first.getGroupId(), first.hasUserId(), first.getReplyToMessageId(), first.getText()));
    SendMessageRequest second = sent.get(1);
    assertEquals(List.of(false, 10001L, 88L), List.of(second.hasGroupId(), second.getUserId(), second.getReplyToMessageId()));
    assertEquals(List.of(10001L), second.getMentionUserIdsList());
    SendMessageRequest third = sent.get(2);
    assertEquals(List.of(10001L, false), List.of(third.getUserId(), third.hasReplyToMessageId()));
  }

  @Test
  void rateLimitWaitIsADuration() {
    SendMessageResponse waited =
        SendMessageResponse.newBuilder()
            .setRateLimitWait(com.google.protobuf.Duration.newBuilder().setSeconds(1).setNanos(250_000_000))
            .build();
    assertEquals(Duration.ofMillis(1250), Messages.rateLimitWait(waited));
    assertEquals(Duration.ZERO, Messages.rateLimitWait(SendMessageResponse.getDefaultInstance()));
  }
}
