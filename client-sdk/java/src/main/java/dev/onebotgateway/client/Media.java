package dev.onebotgateway.client;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One image, video or file of an {@link OutgoingMessage}: a local file or bytes (uploaded
 * first), an http(s) URL the gateway fetches, a media id from an earlier upload, or a path on
 * the gateway host.
 */
public sealed interface Media {
  /** A local file, uploaded before sending. */
  record LocalFile(Path path) implements Media {
    public LocalFile {
      Objects.requireNonNull(path);
    }
  }

  /** Bytes in memory, uploaded before sending. */
  record Bytes(byte[] data, String fileName) implements Media {
    public Bytes {
      Objects.requireNonNull(data);
      fileName = fileName == null ? "" : fileName;
    }
  }

  /** An http(s) URL the gateway fetches. */
  record Url(String url) implements Media {}

  /** A media id from an earlier upload. */
  record MediaId(String id) implements Media {}

  /** An absolute path on the gateway host (under its media_roots). */
  record ServerPath(String path) implements Media {}

  /** A local file. */
  static Media path(Path path) {
    return new LocalFile(path);
  }

  /** Bytes in memory named {@code fileName}. */
  static Media bytes(byte[] data, String fileName) {
    return new Bytes(data, fileName);
  }

  /** An http(s) URL. */
  static Media url(String url) {
    return new Url(url);
  }

  /** A media id from an earlier upload. */
  static Media mediaId(String id) {
    return new MediaId(id);
  }
}
