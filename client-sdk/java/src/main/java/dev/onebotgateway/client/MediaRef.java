package dev.onebotgateway.client;

/**
 * What {@link Client#download(MediaRef)} takes: a media id (a received segment's
 * {@code media_id}, or an UploadMedia id), or a segment of a message.
 *
 * @param mediaId the media id, or null for a message segment
 * @param messageId the message id (when {@code mediaId} is null)
 * @param segmentIndex 0-based index into the message's segments
 */
public record MediaRef(String mediaId, long messageId, int segmentIndex) {
  /** A media id. */
  public static MediaRef id(String mediaId) {
    if (mediaId == null || mediaId.isEmpty()) {
      throw new IllegalArgumentException("the media id is empty");
    }
    return new MediaRef(mediaId, 0, 0);
  }

  /** Segment {@code segmentIndex} of message {@code messageId}. */
  public static MediaRef message(long messageId, int segmentIndex) {
    return new MediaRef(null, messageId, segmentIndex);
  }
}
