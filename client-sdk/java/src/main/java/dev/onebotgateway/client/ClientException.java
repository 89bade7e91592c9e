package dev.onebotgateway.client;

import java.util.Optional;

/**
 * An argument refused on this side, before any call: a send the gateway would refuse for its form
 * (more than 4 images, 1 video, 20000 characters, 20 mentions, ...; checked before anything is
 * uploaded), a local file that is not there, a reply to something that is not a message. An
 * {@link IllegalArgumentException}, so existing handlers still catch it; {@link #reason()} is the
 * {@code ErrorReason} name the gateway would answer with (e.g. {@code TOO_MANY_IMAGES}) when the
 * check is one of the gateway's own, {@link #field()} the argument at fault.
 */
public final class ClientException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String reason;
  private final String field;

  ClientException(String reason, String field, String message) {
    super(reason == null ? message : message + " (" + reason + ")");
    this.reason = reason;
    this.field = field;
  }

  /** The gateway's reason for the same refusal, without the {@code ERROR_REASON_} prefix. */
  public Optional<String> reason() {
    return Optional.ofNullable(reason);
  }

  /** The argument at fault (e.g. {@code images}), when one is. */
  public Optional<String> field() {
    return Optional.ofNullable(field);
  }
}
