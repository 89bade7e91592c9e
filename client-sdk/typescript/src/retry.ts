// Retrying a unary call a standby gateway refused with Unavailable NOT_LEADER (under `[ha]` only
// the account's leader serves it; the standby did nothing, so a retry is always safe).

import type { Interceptor } from "@connectrpc/connect";

import { GatewayError } from "./errors.js";

/** Milliseconds a unary call refused with `NOT_LEADER` is retried in all, unless the options say otherwise. */
export const DEFAULT_NOT_LEADER_RETRY_BUDGET_MS = 30_000;

/**
 * Milliseconds before retry `attempt` (from 1) of a refusal without RetryInfo: 250 doubling to
 * 5000, up to half off at random.
 */
export function notLeaderBackoffMs(attempt: number): number {
  const base = Math.min(250 * 2 ** Math.min(attempt - 1, 6), 5000);
  return base - Math.random() * (base / 2);
}

/** `grpc-timeout` (`<digits><unit>`) in milliseconds. */
function grpcTimeoutMs(value: string | null): number | undefined {
  const match = value === null ? null : /^(\d+)([HMSmun])$/.exec(value);
  if (match === null) {
    return undefined;
  }
  const unit = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 1e-3, n: 1e-6 }[match[2] as "H"];
  return Number(match[1]) * unit;
}

/**
 * A Connect interceptor retrying unary calls refused with `Unavailable` `NOT_LEADER` (and no other
 * error) for at most `budgetMs` in all, never past the call's deadline: each retry waits the
 * refusal's RetryInfo delay, or 250 ms doubling to 5 s with jitter. When the next wait would pass
 * either, the last refusal is thrown. Streaming calls are passed through (the event stream
 * resumes after `NOT_LEADER` by itself; uploads and downloads are not retried).
 */
export function notLeaderRetry(budgetMs: number = DEFAULT_NOT_LEADER_RETRY_BUDGET_MS): Interceptor {
  return (next) => async (req) => {
    if (req.stream || budgetMs <= 0) {
      return await next(req);
    }
    const start = Date.now();
    const timeoutMs = grpcTimeoutMs(req.header.get("grpc-timeout"));
    const stop = start + budgetMs;
    const deadline = timeoutMs === undefined ? Infinity : start + timeoutMs;
    for (let attempt = 1; ; attempt++) {
      const attemptStart = Date.now();
      try {
        return await next(req);
      } catch (err) {
        const refusal = GatewayError.from(err);
        if (!refusal.isNotLeader) {
          throw err;
        }
        const wait = refusal.retryDelayMs || notLeaderBackoffMs(attempt);
        // An attempt cut by the deadline would end in DeadlineExceeded: none is started that
        // would not finish in time, by the last one's duration.
        const now = Date.now();
        if (now + wait >= stop || now + wait + (now - attemptStart) >= deadline || req.signal.aborted) {
          throw err;
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, wait);
          function done(): void {
            clearTimeout(timer);
            req.signal.removeEventListener("abort", done);
            resolve();
          }
          req.signal.addEventListener("abort", done);
        });
        if (req.signal.aborted) {
          throw err;
        }
        if (timeoutMs !== undefined) {
          const leftMs = Math.max(Math.floor(start + timeoutMs - Date.now()), 1);
          req.header.set("grpc-timeout", `${leftMs}m`);
        }
      }
    }
  };
}
