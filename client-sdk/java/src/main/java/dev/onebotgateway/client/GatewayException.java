package dev.onebotgateway.client;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.BadRequest;
import com.google.rpc.ErrorInfo;
import com.google.rpc.RetryInfo;
import dev.onebotgateway.v1.ErrorReason;
import io.grpc.Status;
import io.grpc.protobuf.StatusProto;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A failed call, with the gateway's {@code google.rpc} details decoded from
 * {@code grpc-status-details-bin}: the {@code ErrorInfo} reason (without the {@code ERROR_REASON_}
 * prefix, e.g. {@code GROUP_NOT_ALLOWED}), domain and metadata, the {@code RetryInfo} delay and
 * the {@code BadRequest} field violations.
 */
public final class GatewayException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** {@code ErrorInfo.domain} of the gateway's errors. */
  public static final String ERROR_DOMAIN = "onebot-gateway";

  /** One {@code BadRequest.FieldViolation}. */
  public record FieldViolation(String field, String description) {}

  private final Status.Code code;
  private final String statusMessage;
  private final String reason;
  private final String domain;
  private final Map<String, String> metadata;
  private final Duration retryDelay;
  private final List<FieldViolation> fieldViolations;

  private GatewayException(
      Status.Code code,
      String statusMessage,
      String reason,
      String domain,
      Map<String, String> metadata,
      Duration retryDelay,
      List<FieldViolation> fieldViolations,
      Throwable cause) {
    super(describe(code, statusMessage, reason, retryDelay), cause);
    this.code = code;
    this.statusMessage = statusMessage;
    this.reason = reason;
    this.domain = domain;
    this.metadata = Map.copyOf(metadata);
    this.retryDelay = retryDelay;
    this.fieldViolations = List.copyOf(fieldViolations);
  }

  private static String describe(Status.Code code, String message, String reason, Duration delay) {
    StringBuilder text = new StringBuilder(code.name());
    if (reason != null) {
      text.append(" (").append(reason).append(')');
    }
    text.append(": ").append(message);
    if (delay != null) {
      text.append(" [retry after ").append(delay.toMillis()).append(" ms]");
    }
    return text.toString();
  }

  /** Converts a {@code StatusRuntimeException} (or any throwable of a call). */
  public static GatewayException from(Throwable err) {
    if (err instanceof GatewayException g) {
      return g;
    }
    Status status = Status.fromThrowable(err);
    com.google.rpc.Status details = StatusProto.fromThrowable(err);
    String reason = null;
    String domain = null;
    Map<String, String> metadata = Map.of();
    Duration retryDelay = null;
    List<FieldViolation> violations = new ArrayList<>();
    if (details != null) {
      for (Any any : details.getDetailsList()) {
        try {
          if (any.is(ErrorInfo.class)) {
            ErrorInfo info = any.unpack(ErrorInfo.class);
            reason = info.getReason();
            domain = info.getDomain();
            metadata = info.getMetadataMap();
          } else if (any.is(RetryInfo.class)) {
            com.google.protobuf.Duration d = any.unpack(RetryInfo.class).getRetryDelay();
            retryDelay = Duration.ofSeconds(d.getSeconds(), d.getNanos());
          } else if (any.is(BadRequest.class)) {
            for (BadRequest.FieldViolation v : any.unpack(BadRequest.class).getFieldViolationsList()) {
              violations.add(new FieldViolation(v.getField(), v.getDescription()));
            }
          }
        } catch (InvalidProtocolBufferException e) {
          // A malformed detail is skipped; the status itself is still reported.
        }
      }
    }
    String message = status.getDescription() == null ? "" : status.getDescription();
    return new GatewayException(
        status.getCode(), message, reason, domain, metadata, retryDelay, violations, err);
  }

  /** The gRPC status code. */
  public Status.Code code() {
    return code;
  }

  /** The status message. */
  public String statusMessage() {
    return statusMessage;
  }

  /** {@code ErrorInfo.reason}; empty when the status carried no ErrorInfo. */
  public Optional<String> reason() {
    return Optional.ofNullable(reason);
  }

  /** The reason as the generated enum; {@code UNRECOGNIZED} when unknown or absent. */
  public ErrorReason errorReason() {
    if (reason == null) {
      return ErrorReason.UNRECOGNIZED;
    }
    try {
      return ErrorReason.valueOf("ERROR_REASON_" + reason);
    } catch (IllegalArgumentException e) {
      return ErrorReason.UNRECOGNIZED;
    }
  }

  /** {@code ErrorInfo.domain}; empty when absent. */
  public Optional<String> domain() {
    return Optional.ofNullable(domain);
  }

  /** {@code ErrorInfo.metadata}: every dynamic value of the message. */
  public Map<String, String> metadata() {
    return metadata;
  }

  /**
   * The approval the error names ({@code ErrorInfo} metadata {@code approval_id}): the action a
   * {@code [policy]} rule held for a bot owner's approval ({@code APPROVAL_PENDING}: follow it
   * with {@link Client#waitApproval}, do not retry the call), or the approval of an {@code
   * APPROVAL_NOT_FOUND} / {@code APPROVAL_DECIDED} error. Empty for any other error.
   */
  public Optional<String> approvalId() {
    if (!"APPROVAL_PENDING".equals(reason)
        && !"APPROVAL_NOT_FOUND".equals(reason)
        && !"APPROVAL_DECIDED".equals(reason)) {
      return Optional.empty();
    }
    return Optional.ofNullable(metadata.get("approval_id"));
  }

  /**
   * True when the call was held for a bot owner's approval ({@code FAILED_PRECONDITION}, {@code
   * APPROVAL_PENDING}); {@link #approvalId()} names the approval.
   */
  public boolean isApprovalPending() {
    return "APPROVAL_PENDING".equals(reason);
  }

  /**
   * True when a {@code [policy]} rule refused the call for its requester ({@code
   * PERMISSION_DENIED}, {@code POLICY_DENIED}; metadata {@code rule}, {@code action}, {@code
   * role}, {@code allowed_roles}).
   */
  public boolean isPolicyDenied() {
    return "POLICY_DENIED".equals(reason);
  }

  /**
   * True when the account's OneBot implementation has no such action ({@code UNIMPLEMENTED},
   * {@code NOT_SUPPORTED_BY_IMPLEMENTATION}; metadata {@code implementation}, {@code action}):
   * nothing was sent, and a retry will not help.
   */
  public boolean isNotSupportedByImplementation() {
    return "NOT_SUPPORTED_BY_IMPLEMENTATION".equals(reason);
  }

  /**
   * True when the bot lacks the group role the action needs ({@code FAILED_PRECONDITION}, {@code
   * BOT_NOT_ADMIN}; metadata {@code group_id}, {@code bot_role}, {@code needed_role}).
   */
  public boolean isBotNotAdmin() {
    return "BOT_NOT_ADMIN".equals(reason);
  }

  /**
   * True when a moderation targeted the group's owner or the bot itself ({@code
   * PERMISSION_DENIED}, {@code PROTECTED_MEMBER}; metadata {@code user_id}, {@code why}).
   */
  public boolean isProtectedMember() {
    return "PROTECTED_MEMBER".equals(reason);
  }

  /**
   * True when a standby gateway refused the call because another gateway leads the account
   * ({@code UNAVAILABLE}, {@code NOT_LEADER}, under {@code [ha]}; metadata {@code account_id},
   * {@code leader}, {@code advertise}): nothing was done, so a retry is safe. The client retries
   * these by itself for unary calls ({@link Client.Builder#notLeaderRetry}); this is the last
   * refusal when the budget or the deadline ran out.
   */
  public boolean isNotLeader() {
    return code == Status.Code.UNAVAILABLE && "NOT_LEADER".equals(reason);
  }

  /**
   * Of a {@code NOT_LEADER} refusal: the leader's instance name (metadata {@code leader}), when
   * known.
   */
  public Optional<String> leader() {
    return isNotLeader() ? Optional.ofNullable(metadata.get("leader")) : Optional.empty();
  }

  /**
   * Of a {@code NOT_LEADER} refusal: the leader's advertised {@code host:port} (metadata {@code
   * advertise}), when it gave one.
   */
  public Optional<String> advertise() {
    return isNotLeader() ? Optional.ofNullable(metadata.get("advertise")) : Optional.empty();
  }

  /** {@code RetryInfo.retry_delay}, when the gateway gave one. */
  public Optional<Duration> retryDelay() {
    return Optional.ofNullable(retryDelay);
  }

  /** {@code BadRequest.field_violations}. */
  public List<FieldViolation> fieldViolations() {
    return fieldViolations;
  }
}
