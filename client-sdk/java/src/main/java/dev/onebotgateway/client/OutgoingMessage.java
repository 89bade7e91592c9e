package dev.onebotgateway.client;

import dev.onebotgateway.v1.ChatMessage;
import dev.onebotgateway.v1.OnBehalfOf;
import java.util.ArrayList;
import java.util.List;

/**
 * A message for {@link Client#send}: text, up to 4 images, 1 video and 1 file, to a group or a
 * private chat, optionally quoting a message and mentioning members (in its first message).
 */
public final class OutgoingMessage {
  Long groupId;
  Long userId;
  Long replyTo;
  final List<Long> mentions = new ArrayList<>();
  boolean mentionAll;
  String text = "";
  final List<Media> images = new ArrayList<>();
  final List<Media> videos = new ArrayList<>();
  final List<Media> voices = new ArrayList<>();
  Media file;
  String fileName = "";
  String idempotencyKey = "";
  OnBehalfOf onBehalfOf;
  final boolean forReply;

  private OutgoingMessage(Long groupId) {
    this(groupId, false);
  }

  private OutgoingMessage(Long groupId, boolean forReply) {
    this.forReply = forReply;
    this.groupId = groupId;
  }

  /** A message to {@code groupId}. */
  public static OutgoingMessage toGroup(long groupId) {
    return new OutgoingMessage(groupId);
  }

  /** A message to the account's only whitelisted group. */
  public static OutgoingMessage toDefaultGroup() {
    return new OutgoingMessage(null);
  }

  /**
   * The content of a reply for {@link Client#reply(ChatMessage, boolean, OutgoingMessage)}: the
   * chat and the quote come from the message answered.
   */
  public static OutgoingMessage reply() {
    return new OutgoingMessage(null, true);
  }

  /** A message to the private chat with {@code userId} (in the account's {@code users} whitelist). */
  public static OutgoingMessage toUser(long userId) {
    OutgoingMessage m = new OutgoingMessage(null);
    m.userId = userId;
    return m;
  }

  /**
   * A reply to a received message, in one call: to its chat (its group, else its private chat),
   * quoting it, sent on behalf of its sender ({@link Client#onBehalfOfMessage}). Set its text (or
   * media) and pass it to {@link Client#send}.
   *
   * @throws ClientException when the message has no chat
   */
  public static OutgoingMessage replyFor(ChatMessage message) {
    OutgoingMessage m;
    switch (message.getChat().getKindCase()) {
      case GROUP_ID -> m = toGroup(message.getChat().getGroupId());
      case USER_ID -> m = toUser(message.getChat().getUserId());
      default -> throw new ClientException(
          null, "message", "message " + message.getMessageId() + " has no chat to reply in");
    }
    return m.replyTo(message.getMessageId()).onBehalfOfMessage(message.getMessageId());
  }

  /**
   * Sends it on behalf of the sender of {@code messageId} (a message of the same chat): the
   * gateway's {@code [policy]} rules decide by their role.
   */
  public OutgoingMessage onBehalfOfMessage(long messageId) {
    return onBehalfOf(Client.onBehalfOfMessage(messageId));
  }

  /** Sends it on behalf of the QQ user {@code userId}. */
  public OutgoingMessage onBehalfOfUser(long userId) {
    return onBehalfOf(Client.onBehalfOfUser(userId));
  }

  /** Sends it on behalf of {@code requester} (null: nobody). */
  public OutgoingMessage onBehalfOf(OnBehalfOf requester) {
    this.onBehalfOf = requester;
    return this;
  }

  /** Quotes (replies to) {@code messageId}. */
  public OutgoingMessage replyTo(long messageId) {
    this.replyTo = messageId;
    return this;
  }

  /** Mentions {@code userId} (call again for more; at most 20). */
  public OutgoingMessage mention(long userId) {
    mentions.add(userId);
    return this;
  }

  /** Mentions everyone (@全体成员; the bot must be a group admin). */
  public OutgoingMessage mentionAll() {
    this.mentionAll = true;
    return this;
  }

  /** Sets the text. */
  public OutgoingMessage text(String text) {
    this.text = text;
    return this;
  }

  /** Adds an image. */
  public OutgoingMessage image(Media image) {
    images.add(image);
    return this;
  }

  /** Adds a video. */
  public OutgoingMessage video(Media video) {
    videos.add(video);
    return this;
  }

  /**
   * Adds a voice message (语音: MP3, WAV, OGG, AMR or SILK; at most 1), uploaded with kind {@code
   * MEDIA_KIND_RECORD} and sent as its own message after the text and other media.
   */
  public OutgoingMessage voice(Media voice) {
    voices.add(voice);
    return this;
  }

  /** Sets the group file and its display name (empty: the upload's name). */
  public OutgoingMessage file(Media file, String fileName) {
    this.file = file;
    this.fileName = fileName == null ? "" : fileName;
    return this;
  }

  /** Sets the idempotency key. */
  public OutgoingMessage idempotencyKey(String key) {
    this.idempotencyKey = key;
    return this;
  }
}
