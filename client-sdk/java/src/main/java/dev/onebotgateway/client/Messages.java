package dev.onebotgateway.client;

import dev.onebotgateway.v1.AtSegment;
import dev.onebotgateway.v1.ChatMessage;
import dev.onebotgateway.v1.Event;
import dev.onebotgateway.v1.Segment;
import dev.onebotgateway.v1.SendMessageResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What an agent needs about messages: {@link #mentionsMe} (is the bot addressed), {@link
 * #rateLimitWait} (how long a send waited), and the gateway's SendMessage limits, which {@link
 * Client#send} checks before anything is uploaded.
 */
public final class Messages {
  /** Longest text of one send, in characters (Unicode code points), as the gateway counts. */
  public static final int MAX_TEXT_CHARS = 20_000;
  /** Most images of one send. */
  public static final int MAX_IMAGES = 4;
  /** Most videos of one send. */
  public static final int MAX_VIDEOS = 1;
  /** Most voice messages of one send. */
  public static final int MAX_VOICES = 1;
  /** Most mentions of one send (before duplicates are dropped). */
  public static final int MAX_MENTIONS = 20;
  /** Longest idempotency key, in UTF-8 bytes. */
  public static final int MAX_IDEMPOTENCY_KEY_BYTES = 128;

  private Messages() {}

  /**
   * True when a message event has an {@code @} naming the bot: an at segment whose user id is the
   * event's {@code self_id}. {@code @全体成员} counts only with {@code includeAll} (it addresses
   * every member, not the bot). Any other event kind is not a mention.
   */
  public static boolean mentionsMe(Event event, boolean includeAll) {
    if (!event.hasMessage()) {
      return false;
    }
    return mentionsMe(event.getMessage().getMessage(), event.getSelfId(), includeAll);
  }

  /**
   * True when a message (from history, search, getMessage) has an {@code @} naming {@code selfId}
   * (the bot's QQ number: {@code Account.getSelfId()}); {@code @全体成员} only with {@code
   * includeAll}.
   */
  public static boolean mentionsMe(ChatMessage message, long selfId, boolean includeAll) {
    for (Segment segment : message.getSegmentsList()) {
      if (!segment.hasAt()) {
        continue;
      }
      AtSegment at = segment.getAt();
      if (at.getAll() ? includeAll : at.getUserId() == selfId) {
        return true;
      }
    }
    return false;
  }

  /** How long a send waited for the gateway's rate limits ({@link Duration#ZERO} when it did not). */
  public static Duration rateLimitWait(SendMessageResponse response) {
    return Duration.ofSeconds(
        response.getRateLimitWait().getSeconds(), response.getRateLimitWait().getNanos());
  }

  /**
   * Refuses, with a {@link ClientException} carrying the gateway's reason, a send the gateway
   * would refuse for its form, and a local file that is not there: run before any media is
   * uploaded, so a refused send uploads nothing.
   */
  static void check(OutgoingMessage m) {
    int keyBytes = m.idempotencyKey.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    if (keyBytes > MAX_IDEMPOTENCY_KEY_BYTES) {
      throw new ClientException(
          "INVALID_REQUEST",
          "idempotencyKey",
          "idempotencyKey is " + keyBytes + " bytes; at most " + MAX_IDEMPOTENCY_KEY_BYTES);
    }
    if (m.groupId != null && m.userId != null) {
      throw new ClientException(
          "INVALID_REQUEST", "userId", "give a group or a user, not both: a message goes to one chat");
    }
    if (m.groupId != null && m.groupId <= 0) {
      throw new ClientException("INVALID_REQUEST", "groupId", "groupId must be positive, got " + m.groupId);
    }
    if (m.userId != null && m.userId <= 0) {
      throw new ClientException("INVALID_REQUEST", "userId", "userId must be positive, got " + m.userId);
    }
    boolean lead = m.replyTo != null || !m.mentions.isEmpty() || m.mentionAll;
    if (m.text.isBlank() && m.images.isEmpty() && m.videos.isEmpty() && m.voices.isEmpty() && m.file == null && !lead) {
      throw new ClientException(
          "EMPTY_MESSAGE", null, "nothing to send: give text, images, videos, a voice, a file, a quote or mentions");
    }
    int chars = m.text.codePointCount(0, m.text.length());
    if (chars > MAX_TEXT_CHARS) {
      throw new ClientException(
          "TEXT_TOO_LONG", "text", "text is " + chars + " characters; at most " + MAX_TEXT_CHARS);
    }
    if (m.images.size() > MAX_IMAGES) {
      throw new ClientException(
          "TOO_MANY_IMAGES", "images", m.images.size() + " images; at most " + MAX_IMAGES);
    }
    if (m.videos.size() > MAX_VIDEOS) {
      throw new ClientException(
          "TOO_MANY_VIDEOS", "videos", m.videos.size() + " videos; at most " + MAX_VIDEOS);
    }
    if (m.voices.size() > MAX_VOICES) {
      throw new ClientException(
          "INVALID_REQUEST", "voices", m.voices.size() + " voices; at most " + MAX_VOICES);
    }
    if (m.replyTo != null && m.replyTo == 0) {
      throw new ClientException("INVALID_REQUEST", "replyTo", "replyTo must be a message id (not 0)");
    }
    if (m.mentions.size() > MAX_MENTIONS) {
      throw new ClientException(
          "INVALID_REQUEST",
          "mentions",
          m.mentions.size() + " mentions; at most " + MAX_MENTIONS + " per message");
    }
    for (int i = 0; i < m.mentions.size(); i++) {
      long id = m.mentions.get(i);
      if (id <= 0) {
        throw new ClientException(
            "INVALID_REQUEST",
            "mentions[" + i + "]",
            "mentions[" + i + "] must be a positive QQ number, got " + id);
      }
    }
    List<String> fields = new ArrayList<>();
    List<Media> media = new ArrayList<>();
    for (int i = 0; i < m.images.size(); i++) {
      fields.add("images[" + i + "]");
      media.add(m.images.get(i));
    }
    for (int i = 0; i < m.videos.size(); i++) {
      fields.add("videos[" + i + "]");
      media.add(m.videos.get(i));
    }
    for (int i = 0; i < m.voices.size(); i++) {
      fields.add("voices[" + i + "]");
      media.add(m.voices.get(i));
    }
    if (m.file != null) {
      fields.add("file");
      media.add(m.file);
    }
    for (int i = 0; i < media.size(); i++) {
      if (media.get(i) == null) {
        throw new ClientException(null, fields.get(i), fields.get(i) + " is null");
      }
      if (media.get(i) instanceof Media.LocalFile f && !Files.isRegularFile(f.path())) {
        throw new ClientException(
            null, fields.get(i), fields.get(i) + ": " + f.path() + " is not a regular file");
      }
    }
  }
}
