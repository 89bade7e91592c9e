/**
 * What the client checks and derives about messages: the chat option of `history` and `search`
 * (one shape, refused loudly when wrong), the gateway's SendMessage limits (checked before
 * anything is uploaded), and the helpers an agent answers with (`mentionsMe`, the chat and quote
 * of a reply).
 */

import { durationMs } from "@bufbuild/protobuf/wkt";

import { ClientError } from "./errors.js";
import type { ChatMessage } from "./gen/onebot/gateway/v1/common_pb.js";
import type { Event, MessageEvent } from "./gen/onebot/gateway/v1/event_service_pb.js";
import type { SendMessageResponse } from "./gen/onebot/gateway/v1/message_service_pb.js";

/** Longest text of one send, in characters (Unicode code points), as the gateway counts. */
export const MAX_TEXT_CHARS = 20_000;
/** Most images of one send. */
export const MAX_IMAGES = 4;
/** Most videos of one send. */
export const MAX_VIDEOS = 1;
/** Most voice messages of one send. */
export const MAX_VOICES = 1;
/** Most mentions of one send (`mentions`, before duplicates are dropped). */
export const MAX_MENTIONS = 20;
/** Longest `idempotencyKey`, in UTF-8 bytes. */
export const MAX_IDEMPOTENCY_KEY_BYTES = 128;

/** A chat: a group (`{ groupId }`) or a private chat (`{ userId }`, the other side's QQ number). */
export type ChatOption = { groupId: number | bigint } | { userId: number | bigint };

const CHAT_SHAPE = "{ groupId: <group number> } or { userId: <QQ number> }";

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "bigint") return `${value}n`;
  return typeof value === "object" ? "an object" : JSON.stringify(value);
}

/** A positive id given as a number (a safe integer) or a bigint. */
export function positiveId(value: unknown, name: string): bigint {
  if (typeof value === "bigint" && value > 0n) return value;
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return BigInt(value);
  throw new ClientError(`${name} must be a positive integer (number or bigint), got ${describe(value)}`, {
    reason: "INVALID_REQUEST",
    field: name,
  });
}

/** Refuses keys of `options` that are not in `accepted`, naming them. */
export function checkKeys(options: object, accepted: readonly string[], where: string): void {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new ClientError(`${where} takes an options object (${accepted.join(", ")}), got ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!accepted.includes(key)) {
      throw new ClientError(`${where}: unknown option ${JSON.stringify(key)}; accepted: ${accepted.join(", ")}`, {
        field: key,
      });
    }
  }
}

/**
 * The chat of `history(chat)` or of `search`'s options: exactly one of `groupId` / `userId`
 * (for `search`, none: every archived chat). `chat: {...}` and `group_id` are refused with the
 * shape that is accepted, never read as "no chat".
 */
export function chatOption(
  options: Record<string, unknown>,
  where: string,
  required: boolean,
): { case: "groupId"; value: bigint } | { case: "userId"; value: bigint } | undefined {
  for (const wrong of ["chat", "group_id", "user_id", "group", "user", "target"]) {
    if (wrong in options) {
      throw new ClientError(
        `${where}: the chat is given as ${CHAT_SHAPE}, not as ${JSON.stringify(wrong)}` +
          (where.startsWith("search") ? ", among the search options: search(query, { groupId: 20000003 })" : ""),
        { reason: "INVALID_REQUEST", field: wrong },
      );
    }
  }
  const group = options["groupId"];
  const user = options["userId"];
  if (group !== undefined && user !== undefined) {
    throw new ClientError(`${where}: give groupId or userId, not both`, { reason: "INVALID_REQUEST", field: "userId" });
  }
  if (group !== undefined) return { case: "groupId", value: positiveId(group, "groupId") };
  if (user !== undefined) return { case: "userId", value: positiveId(user, "userId") };
  if (required) {
    throw new ClientError(`${where}: the chat is ${CHAT_SHAPE}`, { reason: "INVALID_REQUEST", field: "groupId" });
  }
  return undefined;
}

/** What `send` checks before uploading. */
export interface SendShape {
  groupId: number | bigint | undefined;
  userId: number | bigint | undefined;
  text: string;
  images: number;
  videos: number;
  /** Voice messages (0 when undefined). */
  voices?: number;
  hasFile: boolean;
  replyTo: number | bigint | undefined;
  mentions: readonly (number | bigint)[];
  mentionAll: boolean;
  idempotencyKey: string;
}

/**
 * Refuses, with a `ClientError` carrying the gateway's reason, a send the gateway would refuse for
 * its form: run before any media is uploaded, so a refused send uploads nothing.
 */
export function checkSend(m: SendShape): void {
  const keyBytes = Buffer.byteLength(m.idempotencyKey, "utf8");
  if (keyBytes > MAX_IDEMPOTENCY_KEY_BYTES) {
    throw new ClientError(`idempotencyKey is ${keyBytes} bytes; at most ${MAX_IDEMPOTENCY_KEY_BYTES}`, {
      reason: "INVALID_REQUEST",
      field: "idempotencyKey",
    });
  }
  if (m.groupId !== undefined && m.userId !== undefined) {
    throw new ClientError("give a group or userId, not both: a message goes to one chat", {
      reason: "INVALID_REQUEST",
      field: "userId",
    });
  }
  if (m.groupId !== undefined) positiveId(m.groupId, "groupId");
  if (m.userId !== undefined) positiveId(m.userId, "userId");
  const hasLead = m.replyTo !== undefined || m.mentions.length > 0 || m.mentionAll;
  const voices = m.voices ?? 0;
  if (m.text.trim() === "" && m.images === 0 && m.videos === 0 && voices === 0 && !m.hasFile && !hasLead) {
    throw new ClientError("nothing to send: give text, images, videos, a voice, a file, a quote or mentions", {
      reason: "EMPTY_MESSAGE",
    });
  }
  let chars = 0;
  for (const _ of m.text) chars += 1;
  if (chars > MAX_TEXT_CHARS) {
    throw new ClientError(`text is ${chars} characters; at most ${MAX_TEXT_CHARS}`, {
      reason: "TEXT_TOO_LONG",
      field: "text",
    });
  }
  if (m.images > MAX_IMAGES) {
    throw new ClientError(`${m.images} images; at most ${MAX_IMAGES}`, { reason: "TOO_MANY_IMAGES", field: "images" });
  }
  if (m.videos > MAX_VIDEOS) {
    throw new ClientError(`${m.videos} videos; at most ${MAX_VIDEOS}`, { reason: "TOO_MANY_VIDEOS", field: "videos" });
  }
  if (voices > MAX_VOICES) {
    throw new ClientError(`${voices} voices; at most ${MAX_VOICES}`, { reason: "INVALID_REQUEST", field: "voices" });
  }
  if (m.replyTo !== undefined && BigInt(m.replyTo) === 0n) {
    throw new ClientError("replyTo must be a message id (not 0)", { reason: "INVALID_REQUEST", field: "replyTo" });
  }
  if (m.mentions.length > MAX_MENTIONS) {
    throw new ClientError(`${m.mentions.length} mentions; at most ${MAX_MENTIONS} per message`, {
      reason: "INVALID_REQUEST",
      field: "mentions",
    });
  }
  m.mentions.forEach((id, i) => positiveId(id, `mentions[${i}]`));
}

/** What `reply` and `mentionsMe` take: an event (a message event), its `MessageEvent`, or a `ChatMessage`. */
export type MessageLike = Event | MessageEvent | ChatMessage;

/** The `ChatMessage` of an event, a message event or a message. */
export function chatMessage(message: MessageLike): ChatMessage {
  switch (message.$typeName) {
    case "onebot.gateway.v1.Event":
      if (message.kind.case !== "message" || message.kind.value.message === undefined) {
        throw new ClientError(`event ${message.sequence} is a ${message.kind.case ?? "empty"} event, not a message`);
      }
      return message.kind.value.message;
    case "onebot.gateway.v1.MessageEvent":
      if (message.message === undefined) throw new ClientError("the message event carries no message");
      return message.message;
    case "onebot.gateway.v1.ChatMessage":
      return message;
    default:
      throw new ClientError(`expected an Event, a MessageEvent or a ChatMessage, got ${describe(message)}`);
  }
}

/**
 * True when the message has an `@` naming the bot: an at segment whose `userId` is the event's
 * `selfId`. `@全体成员` counts only with `includeAll: true` (it addresses every member, not the
 * bot). Any other event kind is not a mention: false. For a `MessageEvent` or a `ChatMessage`
 * (from history) pass the bot's number as `selfId` (`Account.selfId` of `accounts()`).
 */
export function mentionsMe(
  event: MessageLike,
  options: { includeAll?: boolean; selfId?: number | bigint } = {},
): boolean {
  checkKeys(options, ["includeAll", "selfId"], "mentionsMe");
  let selfId = options.selfId === undefined ? undefined : BigInt(options.selfId);
  if (event.$typeName === "onebot.gateway.v1.Event") {
    if (event.kind.case !== "message") return false;
    selfId ??= event.selfId;
  }
  if (selfId === undefined) {
    throw new ClientError("mentionsMe needs selfId for a message without its event", { field: "selfId" });
  }
  for (const segment of chatMessage(event).segments) {
    if (segment.kind.case !== "at") continue;
    if (segment.kind.value.all) {
      if (options.includeAll === true) return true;
    } else if (segment.kind.value.userId === selfId) {
      return true;
    }
  }
  return false;
}

/** Where a reply goes (the message's group, else its private chat) and the id it quotes. */
export function replyTarget(
  message: MessageLike,
  quote: boolean,
): { groupId?: bigint; userId?: bigint; replyTo?: bigint } {
  const msg = chatMessage(message);
  const chat = msg.chat?.kind;
  if (chat === undefined || chat.case === undefined) {
    throw new ClientError(`message ${msg.messageId} has no chat to reply in`);
  }
  if (quote && msg.messageId === 0n) {
    throw new ClientError("this message has no id to quote (a forwarded node): reply with { quote: false }");
  }
  const replyTo = quote ? msg.messageId : undefined;
  return chat.case === "groupId" ? { groupId: chat.value, replyTo } : { userId: chat.value, replyTo };
}

/** How long a send waited for the gateway's rate limits, in milliseconds (0 when it did not wait). */
export function rateLimitWaitMs(response: SendMessageResponse): number {
  return response.rateLimitWait === undefined ? 0 : durationMs(response.rateLimitWait);
}
