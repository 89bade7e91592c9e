package dev.onebotgateway.client;

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
  Media file;
  String fileName = "";
  String idempotencyKey = "";
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
