import { Code, ConnectError } from "@connectrpc/connect";

import { BadRequestSchema, ErrorInfoSchema, RetryInfoSchema } from "./gen/google/rpc/error_details_pb.js";

/** `ErrorInfo.domain` of the gateway's errors. */
export const ERROR_DOMAIN = "onebot-gateway";

/** One `BadRequest.FieldViolation`: which request field is at fault. */
export interface FieldViolation {
  field: string;
  description: string;
}

/**
 * Base class of every failure the SDK throws or rejects with: `GatewayError` (a call failed) and
 * `ClientError` (found on this side). `err instanceof OneBotGatewayError` catches them all.
 */
export class OneBotGatewayError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "OneBotGatewayError";
  }
}

/**
 * A failure found on this side, before a call or after one: bad arguments (an unknown option, a
 * chat given in the wrong shape), a send the gateway would refuse (checked before anything is
 * uploaded), an integrity mismatch, a local file that cannot be read or written (`cause`: the
 * file system's error).
 */
export class ClientError extends OneBotGatewayError {
  /**
   * The `ErrorReason` name the gateway would answer with (e.g. `TOO_MANY_IMAGES`) when the check
   * is one of the gateway's own; undefined otherwise.
   */
  readonly reason: string | undefined;
  /** The argument at fault, when one is (e.g. `images`). */
  readonly field: string | undefined;

  constructor(message: string, options: { reason?: string; field?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ClientError";
    this.reason = options.reason;
    this.field = options.field;
  }
}

/**
 * A failed call, with the gateway's `google.rpc` details decoded from
 * `grpc-status-details-bin`: the `ErrorInfo` reason (without the `ERROR_REASON_` prefix, e.g.
 * `GROUP_NOT_ALLOWED`), domain and metadata, the `RetryInfo` delay, and `BadRequest` violations.
 */
export class GatewayError extends OneBotGatewayError {
  /** The gRPC status code. */
  readonly code: Code;
  /** The status message. */
  readonly rawMessage: string;
  /** `ErrorInfo.reason`; undefined when the status carried no ErrorInfo. */
  readonly reason: string | undefined;
  /** `ErrorInfo.domain` (`onebot-gateway` for the gateway's errors). */
  readonly domain: string | undefined;
  /** `ErrorInfo.metadata`: every dynamic value of the message. */
  readonly metadata: Readonly<Record<string, string>>;
  /** `RetryInfo.retry_delay` in milliseconds, when the gateway knows. */
  readonly retryDelayMs: number | undefined;
  /** `BadRequest.field_violations`. */
  readonly fieldViolations: readonly FieldViolation[];

  constructor(cause: ConnectError) {
    const info = cause.findDetails(ErrorInfoSchema)[0];
    const retry = cause.findDetails(RetryInfoSchema)[0];
    const bad = cause.findDetails(BadRequestSchema)[0];
    const name = Code[cause.code] ?? String(cause.code);
    let text = `${name}${info ? ` (${info.reason})` : ""}: ${cause.rawMessage}`;
    const delay = retry?.retryDelay;
    const retryDelayMs =
      delay === undefined ? undefined : Number(delay.seconds) * 1000 + Math.round(delay.nanos / 1e6);
    if (retryDelayMs !== undefined) {
      text += ` [retry after ${retryDelayMs} ms]`;
    }
    super(text, { cause });
    this.name = "GatewayError";
    this.code = cause.code;
    this.rawMessage = cause.rawMessage;
    this.reason = info?.reason;
    this.domain = info?.domain;
    this.metadata = { ...(info?.metadata ?? {}) };
    this.retryDelayMs = retryDelayMs;
    this.fieldViolations = (bad?.fieldViolations ?? []).map((v) => ({
      field: v.field,
      description: v.description,
    }));
  }

  /**
   * The approval the error names (`ErrorInfo` metadata `approval_id`): the action a `[policy]`
   * rule held for a bot owner's approval (`APPROVAL_PENDING`: follow it with `waitApproval`, do
   * not retry the call), or the approval of an `APPROVAL_NOT_FOUND` / `APPROVAL_DECIDED` error.
   * Undefined for any other error.
   */
  get approvalId(): string | undefined {
    switch (this.reason) {
      case "APPROVAL_PENDING":
      case "APPROVAL_NOT_FOUND":
      case "APPROVAL_DECIDED":
        return this.metadata["approval_id"];
      default:
        return undefined;
    }
  }

  /** True when the call was held for a bot owner's approval (`FailedPrecondition`, `APPROVAL_PENDING`). */
  get isApprovalPending(): boolean {
    return this.reason === "APPROVAL_PENDING";
  }

  /**
   * True when a `[policy]` rule refused the call for its requester (`PermissionDenied`,
   * `POLICY_DENIED`; metadata `rule`, `action`, `role`, `allowed_roles`).
   */
  get isPolicyDenied(): boolean {
    return this.reason === "POLICY_DENIED";
  }

  /**
   * True when the account's OneBot implementation has no such action (`Unimplemented`,
   * `NOT_SUPPORTED_BY_IMPLEMENTATION`; metadata `implementation`, `action`): nothing was sent, and
   * a retry will not help.
   */
  get isNotSupportedByImplementation(): boolean {
    return this.reason === "NOT_SUPPORTED_BY_IMPLEMENTATION";
  }

  /**
   * True when the bot lacks the group role the action needs (`FailedPrecondition`,
   * `BOT_NOT_ADMIN`; metadata `group_id`, `bot_role`, `needed_role`).
   */
  get isBotNotAdmin(): boolean {
    return this.reason === "BOT_NOT_ADMIN";
  }

  /**
   * True when a moderation targeted the group's owner or the bot itself (`PermissionDenied`,
   * `PROTECTED_MEMBER`; metadata `user_id`, `why`).
   */
  get isProtectedMember(): boolean {
    return this.reason === "PROTECTED_MEMBER";
  }

  /**
   * True when a standby gateway refused the call because another gateway leads the account
   * (`Unavailable`, `NOT_LEADER`, under `[ha]`; metadata `account_id`, `leader`, `advertise`):
   * nothing was done, so a retry is safe. The client retries these by itself for unary calls
   * (`notLeaderRetryBudgetMs`); this is the last refusal when the budget or the deadline ran out.
   */
  get isNotLeader(): boolean {
    return this.code === Code.Unavailable && this.reason === "NOT_LEADER";
  }

  /** Of a `NOT_LEADER` refusal: the leader's instance name (metadata `leader`), when known. */
  get leader(): string | undefined {
    return this.isNotLeader ? this.metadata["leader"] : undefined;
  }

  /** Of a `NOT_LEADER` refusal: the leader's advertised `host:port` (metadata `advertise`), when it gave one. */
  get advertise(): string | undefined {
    return this.isNotLeader ? this.metadata["advertise"] : undefined;
  }

  /** Converts any error thrown by a Connect call. */
  static from(err: unknown): GatewayError {
    return err instanceof GatewayError ? err : new GatewayError(ConnectError.from(err));
  }
}

/** True when `err` (a `GatewayError` or any error of a Connect call) is a `NOT_LEADER` refusal. */
export function isNotLeader(err: unknown): boolean {
  if (err instanceof GatewayError) {
    return err.isNotLeader;
  }
  return err instanceof ConnectError && GatewayError.from(err).isNotLeader;
}
