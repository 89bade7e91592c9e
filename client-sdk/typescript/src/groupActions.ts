/**
 * What the client shares about group actions (reactions, essence, typing, group files,
 * moderation): the checks of their arguments, run before any call.
 */

import { ClientError } from "./errors.js";

/** Longest mute of `muteMember`, in seconds (30 days, the platform's limit). */
export const MAX_MUTE_SECONDS = 2_592_000;
/** Longest `emojiId` of `react`, in UTF-8 bytes. */
export const MAX_EMOJI_ID_BYTES = 32;
/** Longest group card of `setMemberCard`, in UTF-8 bytes. */
export const MAX_CARD_BYTES = 60;

/**
 * The `emojiId` of a reaction as text: a QQ face id (`76`: 赞) or a Unicode emoji's code point in
 * decimal (`128077`: 👍), given as a string or a number.
 */
export function emojiIdOf(emojiId: string | number): string {
  const text = String(emojiId);
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes === 0 || bytes > MAX_EMOJI_ID_BYTES) {
    throw new ClientError(`emojiId must be 1 to ${MAX_EMOJI_ID_BYTES} bytes, got ${JSON.stringify(text)}`, {
      reason: "INVALID_REQUEST",
      field: "emojiId",
    });
  }
  return text;
}

/**
 * Whole seconds of a mute given in milliseconds (a part second rounds up: 0 would lift the mute),
 * 0 to 30 days.
 */
export function muteSeconds(durationMs: number): bigint {
  const seconds = Math.ceil(durationMs / 1000);
  if (!Number.isFinite(durationMs) || durationMs < 0 || seconds > MAX_MUTE_SECONDS) {
    throw new ClientError(`durationMs must be 0 to ${MAX_MUTE_SECONDS * 1000} (30 days), got ${durationMs}`, {
      reason: "INVALID_REQUEST",
      field: "durationMs",
    });
  }
  return BigInt(seconds);
}

/** A group card, at most 60 bytes of UTF-8 ("" clears it). */
export function cardOf(card: string): string {
  const bytes = Buffer.byteLength(card, "utf8");
  if (bytes > MAX_CARD_BYTES) {
    throw new ClientError(`card is ${bytes} bytes; at most ${MAX_CARD_BYTES}`, {
      reason: "INVALID_REQUEST",
      field: "card",
    });
  }
  return card;
}

/** A page size within `0..max` (0: the gateway's default). */
export function pageSizeOf(pageSize: number | undefined, max: number): number {
  const size = pageSize ?? 0;
  if (!Number.isInteger(size) || size < 0 || size > max) {
    throw new ClientError(`pageSize must be 0 to ${max}, got ${size}`, { reason: "INVALID_REQUEST", field: "pageSize" });
  }
  return size;
}
