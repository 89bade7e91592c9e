/**
 * What the client shares about governance: who an action is done for (`onBehalfOf`), the state
 * of an approval, and the checks of the approval and audit options.
 */

import { create } from "@bufbuild/protobuf";

import { OnBehalfOfSchema } from "./gen/onebot/gateway/v1/common_pb.js";
import type { OnBehalfOf } from "./gen/onebot/gateway/v1/common_pb.js";
import { ApprovalState } from "./gen/onebot/gateway/v1/governance_service_pb.js";
import type { Approval } from "./gen/onebot/gateway/v1/governance_service_pb.js";
import { ClientError } from "./errors.js";
import { checkKeys } from "./messages.js";

/**
 * The QQ user an action (`send`, `recall`, `poke`) is done for: the gateway's `[policy]` rules
 * decide by their role in the chat. `{ messageId }`: the sender of that message of the chat
 * (preferred: the gateway looks it up); `{ userId }`: that QQ user.
 */
export type OnBehalfOfOption = { messageId: number | bigint } | { userId: number | bigint };

/** Longest `wait` of `waitApproval`, in milliseconds (the gateway's limit: 10 minutes). */
export const MAX_APPROVAL_WAIT_MS = 600_000;

/** The `OnBehalfOf` message of an option (undefined: nobody). */
export function onBehalfOf(option: OnBehalfOfOption | undefined, where: string): OnBehalfOf | undefined {
  if (option === undefined) return undefined;
  if (typeof option !== "object" || option === null) {
    throw new ClientError(`${where}: onBehalfOf is { messageId } or { userId }`, { field: "onBehalfOf" });
  }
  checkKeys(option, ["messageId", "userId"], `${where}: onBehalfOf`);
  const hasMessage = "messageId" in option && option.messageId !== undefined;
  const hasUser = "userId" in option && option.userId !== undefined;
  if (hasMessage === hasUser) {
    throw new ClientError(`${where}: onBehalfOf is { messageId } or { userId }, exactly one`, { field: "onBehalfOf" });
  }
  return "messageId" in option
    ? create(OnBehalfOfSchema, { requester: { case: "messageId", value: BigInt(option.messageId) } })
    : create(OnBehalfOfSchema, { requester: { case: "userId", value: BigInt(option.userId) } });
}

/** True while an approval may still run: pending (waiting for a bot owner) or approved (executing). */
export function isApprovalOpen(approval: Approval): boolean {
  return approval.state === ApprovalState.PENDING || approval.state === ApprovalState.APPROVED;
}
