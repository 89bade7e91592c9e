/**
 * TypeScript client for onebot-gateway over Connect's gRPC transport for Node.
 *
 * `Client` wraps the services generated from `proto/onebot/gateway/v1` (in `./gen`) with a
 * bearer token, TLS settings, typed errors (`GatewayError`), `upload` (streams a file in
 * 256 KiB chunks), `send` (uploads local media first), `download` / `downloadTo` (received or
 * uploaded media, checked against the SHA-256 the gateway states), `replyFor` and `onBehalfOf`
 * (acting for a QQ user, decided by the gateway's `[policy]`), and `approvals` / `waitApproval` /
 * `approve` / `reject` / `audit` (held actions and the audit trail), and the group actions
 * (`react`, `setEssence`, `listEssence`, `setTyping`, `listGroupFiles`, `downloadGroupFile`,
 * `muteMember`, `muteAll`, `kickMember`, `setMemberCard`; `send({ voices })` sends a voice).
 */

import { createHash } from "node:crypto";
import { open, readFile, rename, rm, stat } from "node:fs/promises";
import { basename } from "node:path";

import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, createClient } from "@connectrpc/connect";
import type { Client as ConnectClient, Interceptor, Transport } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";

import { Health, HealthCheckResponse_ServingStatus } from "./gen/grpc/health/v1/health_pb.js";
import { AccountService, file_onebot_gateway_v1_account_service } from "./gen/onebot/gateway/v1/account_service_pb.js";
import type { Account } from "./gen/onebot/gateway/v1/account_service_pb.js";
import { AgentToolService } from "./gen/onebot/gateway/v1/agent_tool_service_pb.js";
import type { CallToolResponse, Tool } from "./gen/onebot/gateway/v1/agent_tool_service_pb.js";
import { ChatSchema, MediaKind } from "./gen/onebot/gateway/v1/common_pb.js";
import type { Chat } from "./gen/onebot/gateway/v1/common_pb.js";
import { EventService } from "./gen/onebot/gateway/v1/event_service_pb.js";
import type { Event, EventKind } from "./gen/onebot/gateway/v1/event_service_pb.js";
import { ApprovalService, ApprovalState, AuditDecision, AuditService } from "./gen/onebot/gateway/v1/governance_service_pb.js";
import type { Approval, ListAuditRecordsResponse } from "./gen/onebot/gateway/v1/governance_service_pb.js";
import { GroupService } from "./gen/onebot/gateway/v1/group_service_pb.js";
import type {
  GroupFile,
  KickMemberResponse,
  ListGroupFilesResponse,
  ListGroupMembersResponse,
  ListGroupsResponse,
  MuteAllResponse,
  MuteMemberResponse,
  PokeMemberResponse,
  SetMemberCardResponse,
} from "./gen/onebot/gateway/v1/group_service_pb.js";
import { MediaService, UploadMediaRequestSchema } from "./gen/onebot/gateway/v1/media_service_pb.js";
import type {
  DownloadGroupFileResponse,
  DownloadMediaHeader,
  DownloadMediaResponse,
  UploadMediaRequest,
  UploadMediaResponse,
} from "./gen/onebot/gateway/v1/media_service_pb.js";
import { MediaSourceSchema, MessageService } from "./gen/onebot/gateway/v1/message_service_pb.js";
import type {
  EssenceMessage,
  GetForwardMessagesResponse,
  GetHistoryResponse,
  GetMessageResponse,
  ListEssenceResponse,
  MediaSource,
  ReactToMessageResponse,
  SearchMessagesResponse,
  SendMessageResponse,
  SetEssenceResponse,
} from "./gen/onebot/gateway/v1/message_service_pb.js";
import { DEFAULT_NOT_LEADER_RETRY_BUDGET_MS, notLeaderRetry } from "./retry.js";
import { ClientError, GatewayError } from "./errors.js";
import { cardOf, emojiIdOf, muteSeconds, pageSizeOf } from "./groupActions.js";
import { MAX_APPROVAL_WAIT_MS, onBehalfOf } from "./governance.js";
import type { OnBehalfOfOption } from "./governance.js";
import { chatMessage, chatOption, checkKeys, checkSend, positiveId, replyTarget } from "./messages.js";
import type { ChatOption, MessageLike } from "./messages.js";

export { ClientError, ERROR_DOMAIN, GatewayError, OneBotGatewayError, isNotLeader } from "./errors.js";
export { DEFAULT_NOT_LEADER_RETRY_BUDGET_MS, notLeaderRetry } from "./retry.js";
export type { FieldViolation } from "./errors.js";
export {
  MAX_IDEMPOTENCY_KEY_BYTES,
  MAX_IMAGES,
  MAX_MENTIONS,
  MAX_TEXT_CHARS,
  MAX_VIDEOS,
  MAX_VOICES,
  mentionsMe,
  rateLimitWaitMs,
} from "./messages.js";
export type { ChatOption, MessageLike } from "./messages.js";
export { MAX_APPROVAL_WAIT_MS, isApprovalOpen } from "./governance.js";
export { MAX_CARD_BYTES, MAX_EMOJI_ID_BYTES, MAX_MUTE_SECONDS } from "./groupActions.js";
export type {
  GroupFile,
  GroupFolder,
  KickMemberResponse,
  ListGroupFilesResponse,
  MuteAllResponse,
  MuteMemberResponse,
  SetMemberCardResponse,
} from "./gen/onebot/gateway/v1/group_service_pb.js";
export type { OnBehalfOfOption } from "./governance.js";
export type { Approval, AuditRecord, ListAuditRecordsResponse } from "./gen/onebot/gateway/v1/governance_service_pb.js";
export { ApprovalState, AuditDecision } from "./gen/onebot/gateway/v1/governance_service_pb.js";
export type { ChatMessage, Segment } from "./gen/onebot/gateway/v1/common_pb.js";
export type { Event, MessageEvent } from "./gen/onebot/gateway/v1/event_service_pb.js";
export type {
  EssenceMessage,
  GetHistoryResponse,
  GetMessageResponse,
  ListEssenceResponse,
  ReactToMessageResponse,
  SearchMessagesResponse,
  SendMessageResponse,
  SetEssenceResponse,
} from "./gen/onebot/gateway/v1/message_service_pb.js";
export type { DownloadMediaHeader } from "./gen/onebot/gateway/v1/media_service_pb.js";
export { MediaKind } from "./gen/onebot/gateway/v1/common_pb.js";
export { EventKind } from "./gen/onebot/gateway/v1/event_service_pb.js";
export { ErrorReason } from "./gen/onebot/gateway/v1/error_reason_pb.js";

/** The gateway's default listen address. */
export const DEFAULT_ADDRESS = "http://127.0.0.1:50051";
/**
 * Prefix of the per-account health service names: `health(ACCOUNT_HEALTH_SERVICE_PREFIX + id)` is
 * the health of account `id` (`SERVING` while its OneBot connection is up). The gateway registers
 * these names with its health service; they are not proto services. Built from the API's proto
 * package.
 */
export const ACCOUNT_HEALTH_SERVICE_PREFIX = `${file_onebot_gateway_v1_account_service.proto.package}.account.`;
/** Size of the chunks `upload` streams. */
export const CHUNK_SIZE = 256 * 1024;
/**
 * Request metadata naming the account of a call. Every call sends it (the client's account,
 * `default` when empty) so a proxy in front of many gateways can route each account to the
 * gateway holding it; the gateway refuses a request whose `accountId` names another one.
 */
export const ACCOUNT_METADATA_KEY = "x-onebot-account";
/** Reconnect attempts in a row before an event stream's error reaches the caller. */
export const MAX_RECONNECTS = 10;

/** Options of `Client.events`. */
export interface EventsOptions {
  chats?: Chat[];
  kinds?: EventKind[];
  /** Resume after this sequence number (replays the buffered events after it). */
  afterSequence?: bigint;
  /** Aborting it ends the iteration. */
  signal?: AbortSignal;
  /** Called before each reconnect after a broken connection, with the error and the attempt. */
  onReconnect?: (error: GatewayError, attempt: number) => void;
}

/**
 * True for a broken connection (a proxy or the network went away) and for a subscriber the
 * gateway dropped for lagging: the event stream is reopened from its position.
 */
function resumable(err: GatewayError): boolean {
  switch (err.code) {
    case Code.Unavailable:
    case Code.Internal:
    case Code.Unknown:
    case Code.Canceled:
      return true;
    case Code.ResourceExhausted:
      return err.reason === "EVENT_STREAM_LAGGED";
    default:
      return false;
  }
}

/** Milliseconds before reconnect attempt `attempt` (from 1): 100 doubling to 5000, up to half off at random. */
function backoffMs(attempt: number): number {
  const base = Math.min(100 * 2 ** Math.min(attempt - 1, 6), 5000);
  return base - Math.random() * (base / 2);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done);
  });
}

/** Runs a file system operation; its failure becomes a `ClientError` (`cause`: the original). */
async function local<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new ClientError(err instanceof Error ? err.message : String(err), { cause: err });
  }
}

/** Options of `search`: the chat as `history` takes it (`groupId` or `userId`), and the filters. */
export type SearchOptions = {
  /** Only this group (none of `groupId` / `userId`: every archived chat of the account). */
  groupId?: number | bigint;
  /** Only this private chat. */
  userId?: number | bigint;
  since?: Date;
  until?: Date;
  senderId?: number | bigint;
  limit?: number;
  includeRecalled?: boolean;
};

const SEARCH_OPTIONS = ["groupId", "userId", "since", "until", "senderId", "limit", "includeRecalled"] as const;
const HISTORY_OPTIONS = ["count", "anchor", "until"] as const;
const SEND_OPTIONS = [
  "userId",
  "text",
  "images",
  "videos",
  "voices",
  "file",
  "fileName",
  "replyTo",
  "mentions",
  "mentionAll",
  "idempotencyKey",
  "onBehalfOf",
] as const;
const AUDIT_OPTIONS = ["since", "until", "action", "target", "decision", "limit"] as const;

/** Filters of `audit`. */
export interface AuditOptions {
  /** Only records at or after this time. */
  since?: Date;
  /** Only records before this time. */
  until?: Date;
  /** Only records of this action (`send`, `mention_all`, `recall`, `poke`, ...). */
  action?: string;
  /** Only this chat, `group:<id>` or `private:<id>`. */
  target?: string;
  /** Only this decision. */
  decision?: AuditDecision;
  /** Most records per page: 0 = 50, at most 500. */
  limit?: number;
}

/** Settings of a `Client`. */
export interface ClientOptions {
  /** `http://host:port` (plaintext, HTTP/2 prior knowledge) or `https://host:port` (TLS). */
  address?: string;
  /** Bearer token, sent as `authorization: Bearer <token>` on every call. */
  token?: string;
  /** PEM file of the CA that signed the gateway's certificate (https only). */
  caFile?: string;
  /** Account the helpers act as (empty: the gateway's `default`). */
  accountId?: string;
  /** Deadline of each unary call in milliseconds. */
  timeoutMs?: number;
  /**
   * How long, in all, a unary call refused with `Unavailable` `NOT_LEADER` (a standby gateway under
   * `[ha]`: nothing was done) is retried, in milliseconds (default 30 000; 0 turns it off). Each
   * retry waits the refusal's RetryInfo delay, or 250 ms doubling to 5 s with jitter; the call's
   * deadline also ends it, and then the last `NOT_LEADER` error is thrown. No other error is
   * retried, and streaming calls (uploads, downloads) are not.
   */
  notLeaderRetryBudgetMs?: number;
}

/** What `download` takes: a media id, or a message id and a 0-based segment index. */
export type MediaRef = string | { messageId: number | bigint; segmentIndex: number };

/** A downloaded item: the header (media id, kind, MIME type, size, SHA-256, file name) and the bytes. */
export interface Downloaded {
  header: DownloadMediaHeader;
  data: Uint8Array;
}

/** Where an upload's bytes come from: a local file path or bytes in memory. */
export type UploadSource = string | Uint8Array;
/** `"image" | "video" | "file" | "record"` (a voice) or a `MediaKind` value. */
export type Kind = "image" | "video" | "file" | "record" | MediaKind;

/** What an upload staged on the gateway. */
export interface Uploaded {
  mediaId: string;
  size: number;
  sha256: string;
  mimeType: string;
  response: UploadMediaResponse;
}

/**
 * One media item of `send`: a local path (string; `http(s)://` strings are URLs fetched by the
 * gateway), bytes (uploaded first), or an explicit source.
 */
export type MediaInput =
  | string
  | Uint8Array
  | { mediaId: string }
  | { url: string }
  | { serverPath: string }
  | { data: Uint8Array; fileName?: string };

/** A message for `send`. */
export interface SendOptions {
  /** A private chat (the other side's QQ number) instead of the group argument. */
  userId?: number | bigint;
  text?: string;
  images?: MediaInput[];
  videos?: MediaInput[];
  /**
   * Up to 1 voice message (语音: MP3, WAV, OGG, AMR or SILK), uploaded with kind `RECORD` and sent
   * as its own message after the text and other media.
   */
  voices?: MediaInput[];
  file?: MediaInput;
  fileName?: string;
  /** Quote (reply to) this message id in the first message. */
  replyTo?: number | bigint;
  /** Mention these QQ numbers (at most 20) in the first message. */
  mentions?: (number | bigint)[];
  /** Mention everyone (`@全体成员`; the bot must be a group admin). */
  mentionAll?: boolean;
  idempotencyKey?: string;
  /** The QQ user the message is sent for (`[policy]` decides by their role); undefined: nobody. */
  onBehalfOf?: OnBehalfOfOption;
}

function kindOf(kind: Kind): MediaKind {
  switch (kind) {
    case "image":
      return MediaKind.IMAGE;
    case "video":
      return MediaKind.VIDEO;
    case "file":
      return MediaKind.FILE;
    case "record":
      return MediaKind.RECORD;
    default:
      return kind;
  }
}

async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw GatewayError.from(err);
  }
}

/** A connection to one gateway. Every failed call rejects with `GatewayError`. */
export class Client {
  readonly accountId: string;
  readonly transport: Transport;
  /** The generated service clients. */
  readonly messageService: ConnectClient<typeof MessageService>;
  readonly groupService: ConnectClient<typeof GroupService>;
  readonly mediaService: ConnectClient<typeof MediaService>;
  readonly toolService: ConnectClient<typeof AgentToolService>;
  readonly accountService: ConnectClient<typeof AccountService>;
  readonly eventService: ConnectClient<typeof EventService>;
  readonly approvalService: ConnectClient<typeof ApprovalService>;
  readonly auditService: ConnectClient<typeof AuditService>;
  private readonly timeoutMs: number | undefined;
  private readonly healthService: ConnectClient<typeof Health>;

  private constructor(options: ClientOptions, ca: Buffer | undefined) {
    const address = options.address ?? DEFAULT_ADDRESS;
    const account = options.accountId === undefined || options.accountId === "" ? "default" : options.accountId;
    if (!/^[\x21-\x7e]+$/.test(account)) {
      throw new ClientError(`account id ${JSON.stringify(account)}: account ids are ASCII letters, digits, _ and -`);
    }
    const interceptors: Interceptor[] = [
      (next) => async (req) => {
        if (!req.header.has(ACCOUNT_METADATA_KEY)) {
          req.header.set(ACCOUNT_METADATA_KEY, account);
        }
        return await next(req);
      },
    ];
    if (options.token !== undefined) {
      const header = `Bearer ${options.token}`;
      interceptors.push((next) => async (req) => {
        req.header.set("authorization", header);
        return await next(req);
      });
    }
    const notLeaderBudgetMs = options.notLeaderRetryBudgetMs ?? DEFAULT_NOT_LEADER_RETRY_BUDGET_MS;
    if (notLeaderBudgetMs > 0) {
      interceptors.push(notLeaderRetry(notLeaderBudgetMs));
    }
    if (ca !== undefined && !address.startsWith("https://")) {
      throw new ClientError("TLS settings need an https:// address");
    }
    this.transport = createGrpcTransport({
      baseUrl: address,
      interceptors,
      defaultTimeoutMs: options.timeoutMs,
      readMaxBytes: 64 * 1024 * 1024,
      ...(ca !== undefined ? { nodeOptions: { ca } } : {}),
    });
    this.accountId = options.accountId ?? "";
    this.messageService = createClient(MessageService, this.transport);
    this.groupService = createClient(GroupService, this.transport);
    this.mediaService = createClient(MediaService, this.transport);
    this.toolService = createClient(AgentToolService, this.transport);
    this.accountService = createClient(AccountService, this.transport);
    this.eventService = createClient(EventService, this.transport);
    this.approvalService = createClient(ApprovalService, this.transport);
    this.auditService = createClient(AuditService, this.transport);
    this.timeoutMs = options.timeoutMs;
    this.healthService = createClient(Health, this.transport);
  }

  /** Creates a client (reads `caFile` first); connections are opened on first use. */
  static async connect(options: ClientOptions = {}): Promise<Client> {
    const caFile = options.caFile;
    const ca = caFile !== undefined ? await local(() => readFile(caFile)) : undefined;
    return new Client(options, ca);
  }

  /**
   * One page of a chat's history, oldest first (pass `nextAnchorMessageId` as `anchor`). `chat` is
   * `{ groupId }` or `{ userId }`; any other shape, or an unknown option, throws a `ClientError`.
   */
  async history(
    chat: ChatOption,
    options: { count?: number; anchor?: bigint; until?: Date } = {},
  ): Promise<GetHistoryResponse> {
    const kind = chatOption(chat as Record<string, unknown>, "history(chat)", true);
    checkKeys(chat, ["groupId", "userId"], "history(chat): the chat");
    checkKeys(options, HISTORY_OPTIONS, "history(chat, options)");
    return call(() =>
      this.messageService.getHistory({
        accountId: this.accountId,
        chat: create(ChatSchema, { kind }),
        count: options.count ?? 20,
        anchorMessageId: options.anchor,
        until: options.until === undefined ? undefined : timestampFromDate(options.until),
      }),
    );
  }

  /**
   * Searches the gateway's message archive: yields the pages of matches, newest page first
   * (each page oldest first), fetching the next page as the iteration goes on. The chat is given
   * as `history` takes it, `{ groupId }` or `{ userId }`, among the options; without one, every
   * archived chat of the account. `limit` 0 = 20. An unknown option or another chat shape
   * (`chat: {...}`, `group_id`) throws a `ClientError` before any call.
   */
  async *search(query: string, options: SearchOptions = {}): AsyncGenerator<SearchMessagesResponse> {
    const kind = chatOption(options as Record<string, unknown>, "search(query, options)", false);
    checkKeys(options, SEARCH_OPTIONS, "search(query, options)");
    let pageToken = "";
    for (;;) {
      const page: SearchMessagesResponse = await call(() =>
        this.messageService.searchMessages({
          accountId: this.accountId,
          query,
          chat: kind === undefined ? undefined : create(ChatSchema, { kind }),
          since: options.since === undefined ? undefined : timestampFromDate(options.since),
          until: options.until === undefined ? undefined : timestampFromDate(options.until),
          senderId: options.senderId === undefined ? undefined : BigInt(options.senderId),
          limit: options.limit ?? 0,
          pageToken,
          includeRecalled: options.includeRecalled ?? false,
        }),
      );
      yield page;
      if (page.nextPageToken === "") {
        return;
      }
      pageToken = page.nextPageToken;
    }
  }

  /** Members of a group (`limit` 0 = 100; `noCache` undefined = cached when fresh). */
  async members(
    groupId: number | bigint,
    options: { limit?: number; noCache?: boolean } = {},
  ): Promise<ListGroupMembersResponse> {
    return call(() =>
      this.groupService.listGroupMembers({
        accountId: this.accountId,
        groupId: BigInt(groupId),
        limit: options.limit ?? 0,
        noCache: options.noCache,
      }),
    );
  }

  /** The groups the account may use. */
  async groups(): Promise<ListGroupsResponse> {
    return call(() => this.groupService.listGroups({ accountId: this.accountId }));
  }

  /**
   * Pokes `userId` in `groupId` (undefined: the account's only whitelisted group), on behalf of
   * `onBehalfOf` (`{ messageId }` / `{ userId }`; undefined: nobody).
   */
  async poke(
    userId: number | bigint,
    options: { groupId?: number | bigint; onBehalfOf?: OnBehalfOfOption } = {},
  ): Promise<PokeMemberResponse> {
    checkKeys(options, ["groupId", "onBehalfOf"], "poke(userId, options)");
    const requester = onBehalfOf(options.onBehalfOf, "poke(userId, options)");
    return call(() =>
      this.groupService.pokeMember({
        accountId: this.accountId,
        userId: BigInt(userId),
        groupId: options.groupId === undefined ? undefined : BigInt(options.groupId),
        onBehalfOf: requester,
      }),
    );
  }

  /**
   * Adds an emoji reaction (表情回应) to a group message, or with `remove` takes the bot's own
   * back. `emojiId` is a QQ face id (`76`: 赞) or a Unicode emoji's code point in decimal
   * (`128077`: 👍), as a string or a number; `onBehalfOf` as for `poke`.
   */
  async react(
    messageId: number | bigint,
    emojiId: string | number,
    options: { remove?: boolean; onBehalfOf?: OnBehalfOfOption } = {},
  ): Promise<ReactToMessageResponse> {
    checkKeys(options, ["remove", "onBehalfOf"], "react(messageId, emojiId, options)");
    const request = {
      accountId: this.accountId,
      messageId: positiveId(messageId, "messageId"),
      emojiId: emojiIdOf(emojiId),
      remove: options.remove ?? false,
      onBehalfOf: onBehalfOf(options.onBehalfOf, "react(messageId, emojiId, options)"),
    };
    return call(() => this.messageService.reactToMessage(request));
  }

  /**
   * Marks a group message as essence (精华), or unmarks it with `remove`; the bot must be a group
   * admin (`BOT_NOT_ADMIN`). `onBehalfOf` as for `poke`.
   */
  async setEssence(
    messageId: number | bigint,
    options: { remove?: boolean; onBehalfOf?: OnBehalfOfOption } = {},
  ): Promise<SetEssenceResponse> {
    checkKeys(options, ["remove", "onBehalfOf"], "setEssence(messageId, options)");
    const request = {
      accountId: this.accountId,
      messageId: positiveId(messageId, "messageId"),
      remove: options.remove ?? false,
      onBehalfOf: onBehalfOf(options.onBehalfOf, "setEssence(messageId, options)"),
    };
    return call(() => this.messageService.setEssence(request));
  }

  /**
   * A group's essence messages (undefined: the account's only whitelisted group): yields the pages
   * (`pageSize` 0 = 20, at most 50), newest marking first, fetching the next page as the iteration
   * goes on.
   */
  async *listEssence(
    groupId?: number | bigint,
    options: { pageSize?: number } = {},
  ): AsyncGenerator<ListEssenceResponse> {
    checkKeys(options, ["pageSize"], "listEssence(groupId, options)");
    const group = groupId === undefined ? undefined : positiveId(groupId, "groupId");
    const pageSize = pageSizeOf(options.pageSize, 50);
    let pageToken = "";
    for (;;) {
      const page: ListEssenceResponse = await call(() =>
        this.messageService.listEssence({ accountId: this.accountId, groupId: group, pageSize, pageToken }),
      );
      yield page;
      if (page.nextPageToken === "") return;
      pageToken = page.nextPageToken;
    }
  }

  /** Every essence message of a group, across all pages of `listEssence`. */
  async *essenceMessages(groupId?: number | bigint, options: { pageSize?: number } = {}): AsyncGenerator<EssenceMessage> {
    for await (const page of this.listEssence(groupId, options)) yield* page.messages;
  }

  /**
   * Shows "正在输入" (typing) to `userId` in their private chat, for example while the model
   * thinks; the user must be in the private whitelist (`USER_NOT_ALLOWED`), and implementations
   * without the action answer `NOT_SUPPORTED_BY_IMPLEMENTATION` (`isNotSupportedByImplementation`).
   */
  async setTyping(userId: number | bigint, options: { onBehalfOf?: OnBehalfOfOption } = {}): Promise<void> {
    checkKeys(options, ["onBehalfOf"], "setTyping(userId, options)");
    const request = {
      accountId: this.accountId,
      userId: positiveId(userId, "userId"),
      onBehalfOf: onBehalfOf(options.onBehalfOf, "setTyping(userId, options)"),
    };
    await call(() => this.messageService.setTyping(request));
  }

  /**
   * One folder of a group's files (群文件; `folderId` "" = the root): yields the pages, its
   * folders first, then its files (`pageSize` 0 = 50, at most 200), fetching the next page as the
   * iteration goes on.
   */
  async *listGroupFiles(
    groupId?: number | bigint,
    options: { folderId?: string; pageSize?: number } = {},
  ): AsyncGenerator<ListGroupFilesResponse> {
    checkKeys(options, ["folderId", "pageSize"], "listGroupFiles(groupId, options)");
    const group = groupId === undefined ? undefined : positiveId(groupId, "groupId");
    const pageSize = pageSizeOf(options.pageSize, 200);
    let pageToken = "";
    for (;;) {
      const page: ListGroupFilesResponse = await call(() =>
        this.groupService.listGroupFiles({
          accountId: this.accountId,
          groupId: group,
          folderId: options.folderId ?? "",
          pageSize,
          pageToken,
        }),
      );
      yield page;
      if (page.nextPageToken === "") return;
      pageToken = page.nextPageToken;
    }
  }

  /** Every file of a folder of a group's files, across all pages of `listGroupFiles` (sub-folders left out). */
  async *groupFiles(
    groupId?: number | bigint,
    options: { folderId?: string; pageSize?: number } = {},
  ): AsyncGenerator<GroupFile> {
    for await (const page of this.listGroupFiles(groupId, options)) yield* page.files;
  }

  /**
   * Mutes (禁言) `userId` for `durationMs` milliseconds (sent in whole seconds, a part second
   * rounded up; at most 30 days; 0 lifts the mute). Moderation: refused unless a `[[policy.rules]]`
   * entry names `mute` (`isPolicyDenied`, metadata `rule` = `none`); the bot must be an admin
   * (`isBotNotAdmin`); the owner and the bot are never targets (`isProtectedMember`).
   */
  async muteMember(
    userId: number | bigint,
    durationMs: number,
    options: { groupId?: number | bigint; onBehalfOf?: OnBehalfOfOption } = {},
  ): Promise<MuteMemberResponse> {
    checkKeys(options, ["groupId", "onBehalfOf"], "muteMember(userId, durationMs, options)");
    const request = {
      accountId: this.accountId,
      groupId: options.groupId === undefined ? undefined : positiveId(options.groupId, "groupId"),
      userId: positiveId(userId, "userId"),
      durationSecs: muteSeconds(durationMs),
      onBehalfOf: onBehalfOf(options.onBehalfOf, "muteMember(userId, durationMs, options)"),
    };
    return call(() => this.groupService.muteMember(request));
  }

  /** Turns the whole-group mute (全员禁言) on or off. Moderation, as `muteMember` (policy action `mute_all`). */
  async muteAll(
    enable: boolean,
    options: { groupId?: number | bigint; onBehalfOf?: OnBehalfOfOption } = {},
  ): Promise<MuteAllResponse> {
    checkKeys(options, ["groupId", "onBehalfOf"], "muteAll(enable, options)");
    const request = {
      accountId: this.accountId,
      groupId: options.groupId === undefined ? undefined : positiveId(options.groupId, "groupId"),
      enable,
      onBehalfOf: onBehalfOf(options.onBehalfOf, "muteAll(enable, options)"),
    };
    return call(() => this.groupService.muteAll(request));
  }

  /**
   * Removes (踢出) a member; `rejectRejoin` refuses their later join requests. Moderation, as
   * `muteMember` (policy action `kick`).
   */
  async kickMember(
    userId: number | bigint,
    options: { groupId?: number | bigint; rejectRejoin?: boolean; onBehalfOf?: OnBehalfOfOption } = {},
  ): Promise<KickMemberResponse> {
    checkKeys(options, ["groupId", "rejectRejoin", "onBehalfOf"], "kickMember(userId, options)");
    const request = {
      accountId: this.accountId,
      groupId: options.groupId === undefined ? undefined : positiveId(options.groupId, "groupId"),
      userId: positiveId(userId, "userId"),
      rejectRejoin: options.rejectRejoin ?? false,
      onBehalfOf: onBehalfOf(options.onBehalfOf, "kickMember(userId, options)"),
    };
    return call(() => this.groupService.kickMember(request));
  }

  /**
   * Sets a member's group card (群名片, at most 60 bytes; "" clears it). Moderation, as
   * `muteMember` (policy action `set_card`).
   */
  async setMemberCard(
    userId: number | bigint,
    card: string,
    options: { groupId?: number | bigint; onBehalfOf?: OnBehalfOfOption } = {},
  ): Promise<SetMemberCardResponse> {
    checkKeys(options, ["groupId", "onBehalfOf"], "setMemberCard(userId, card, options)");
    const request = {
      accountId: this.accountId,
      groupId: options.groupId === undefined ? undefined : positiveId(options.groupId, "groupId"),
      userId: positiveId(userId, "userId"),
      card: cardOf(card),
      onBehalfOf: onBehalfOf(options.onBehalfOf, "setMemberCard(userId, card, options)"),
    };
    return call(() => this.groupService.setMemberCard(request));
  }

  /** The approvals of the client's account in `state` (undefined: every state), newest first (`limit` 0 = 50). */
  async approvals(options: { state?: ApprovalState; limit?: number } = {}): Promise<Approval[]> {
    checkKeys(options, ["state", "limit"], "approvals(options)");
    const response = await call(() =>
      this.approvalService.listApprovals({
        accountId: this.accountId,
        state: options.state ?? ApprovalState.UNSPECIFIED,
        limit: options.limit ?? 0,
      }),
    );
    return response.approvals;
  }

  /** One approval, at once. */
  async approval(approvalId: string): Promise<Approval> {
    return this.waitApproval(approvalId, 0);
  }

  /**
   * One approval once it is no longer pending or executing (`isApprovalOpen`), or after `waitMs`
   * milliseconds (at most `MAX_APPROVAL_WAIT_MS`), whichever comes first. The call's deadline is
   * stretched to cover the wait.
   */
  async waitApproval(approvalId: string, waitMs: number): Promise<Approval> {
    if (!(waitMs >= 0 && waitMs <= MAX_APPROVAL_WAIT_MS)) {
      throw new ClientError(`waitMs must be 0 to ${MAX_APPROVAL_WAIT_MS}, got ${waitMs}`, {
        reason: "INVALID_REQUEST",
        field: "waitMs",
      });
    }
    const wait =
      waitMs > 0
        ? { seconds: BigInt(Math.floor(waitMs / 1000)), nanos: Math.round((waitMs % 1000) * 1e6) }
        : undefined;
    const timeoutMs =
      this.timeoutMs === undefined || waitMs === 0 ? this.timeoutMs : Math.max(this.timeoutMs, waitMs + 10_000);
    const response = await call(() =>
      this.approvalService.getApproval({ approvalId, wait }, timeoutMs === undefined ? {} : { timeoutMs }),
    );
    return Client.approvalOf(response.approval);
  }

  /**
   * Approves (and so executes, before it resolves) a pending approval; needs a token with
   * `approve = true`. The approval comes back EXECUTED or FAILED.
   */
  async approve(approvalId: string): Promise<Approval> {
    return this.decide(approvalId, true);
  }

  /** Rejects a pending approval; needs a token with `approve = true`. */
  async reject(approvalId: string): Promise<Approval> {
    return this.decide(approvalId, false);
  }

  private async decide(approvalId: string, approve: boolean): Promise<Approval> {
    const response = await call(() => this.approvalService.decideApproval({ approvalId, approve }));
    return Client.approvalOf(response.approval);
  }

  private static approvalOf(approval: Approval | undefined): Approval {
    if (approval === undefined) throw new ClientError("the gateway answered without an approval");
    return approval;
  }

  /**
   * The audit trail of the client's account: yields the pages of records (newest first),
   * fetching the next page as the iteration goes on. An unknown option throws a `ClientError`
   * before any call.
   */
  async *audit(options: AuditOptions = {}): AsyncGenerator<ListAuditRecordsResponse> {
    checkKeys(options, AUDIT_OPTIONS, "audit(options)");
    let pageToken = "";
    for (;;) {
      const page: ListAuditRecordsResponse = await call(() =>
        this.auditService.listAuditRecords({
          accountId: this.accountId,
          since: options.since === undefined ? undefined : timestampFromDate(options.since),
          until: options.until === undefined ? undefined : timestampFromDate(options.until),
          action: options.action ?? "",
          target: options.target ?? "",
          decision: options.decision ?? AuditDecision.UNSPECIFIED,
          limit: options.limit ?? 0,
          pageToken,
        }),
      );
      yield page;
      if (page.nextPageToken === "") {
        return;
      }
      pageToken = page.nextPageToken;
    }
  }

  /** Every configured account with its connection state. */
  async accounts(): Promise<Account[]> {
    return (await call(() => this.accountService.listAccounts({}))).accounts;
  }

  /** The agent tools with their JSON Schemas. */
  async listTools(): Promise<Tool[]> {
    return (await call(() => this.toolService.listTools({}))).tools;
  }

  /** Calls an agent tool; a failed tool call is a response with `isError` set. */
  async callTool(name: string, args: Record<string, unknown> | string = {}): Promise<CallToolResponse> {
    const argumentsJson = typeof args === "string" ? args : JSON.stringify(args);
    return call(() => this.toolService.callTool({ name, argumentsJson }));
  }

  /**
   * Follows the account's events. Leaving the `for await` loop (or aborting `signal`) cancels
   * the stream.
   *
   * The stream resumes by itself: when the connection breaks (a proxy or the network restarted),
   * the gateway drops it for lagging, or a standby gateway refuses it (`Unavailable`
   * `NOT_LEADER`, after its RetryInfo delay), it reconnects with `afterSequence` set to the last event
   * delivered (or the last heartbeat's position), with backoff (100 ms doubling to 5 s,
   * `MAX_RECONNECTS` attempts in a row), and yields every event once. Heartbeats are never yielded.
   */
  async *events(options: EventsOptions = {}): AsyncGenerator<Event> {
    const controller = new AbortController();
    const onAbort = (): void => controller.abort();
    options.signal?.addEventListener("abort", onAbort);
    let position = options.afterSequence;
    let failures = 0;
    try {
      for (;;) {
        const stream = this.eventService.streamEvents(
          {
            accountId: this.accountId,
            chats: options.chats ?? [],
            kinds: options.kinds ?? [],
            afterSequence: position,
          },
          { signal: controller.signal, timeoutMs: 0 },
        );
        try {
          for await (const response of stream) {
            failures = 0;
            if (response.heartbeat !== undefined) {
              const beat = response.heartbeat.lastSequence;
              position = position === undefined || beat > position ? beat : position;
            }
            const event = response.event;
            if (event === undefined || (position !== undefined && event.sequence <= position)) {
              continue;
            }
            position = event.sequence;
            yield event;
          }
          return;
        } catch (err) {
          if (controller.signal.aborted) {
            return;
          }
          const error = GatewayError.from(err);
          if (!resumable(error) || failures >= MAX_RECONNECTS) {
            throw error;
          }
          failures += 1;
          options.onReconnect?.(error, failures);
          // A standby's NOT_LEADER refusal says when the leader may be there (RetryInfo).
          const wait = error.isNotLeader && error.retryDelayMs ? error.retryDelayMs : backoffMs(failures);
          await sleep(wait, controller.signal);
          if (controller.signal.aborted) {
            return;
          }
        }
      }
    } finally {
      controller.abort();
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Health of `service` (`""`: the gateway): `SERVING`, `NOT_SERVING`, ... */
  async health(service = ""): Promise<string> {
    const response = await call(() => this.healthService.check({ service }));
    return HealthCheckResponse_ServingStatus[response.status] ?? String(response.status);
  }

  /**
   * Streams a local file (or bytes) to the gateway in 256 KiB chunks and returns the media id,
   * size and SHA-256 (checked against the bytes sent). `onProgress(sent, total)` follows each chunk.
   */
  async upload(
    source: UploadSource,
    kind: Kind,
    options: { fileName?: string; onProgress?: (sent: number, total: number) => void } = {},
  ): Promise<Uploaded> {
    const hash = createHash("sha256");
    let sent = 0;
    let total: number;
    let fileName = options.fileName ?? "";
    let chunks: () => AsyncGenerator<Uint8Array>;
    if (typeof source === "string") {
      const info = await local(() => stat(source));
      if (!info.isFile()) {
        throw new ClientError(`${source} is not a regular file`);
      }
      total = info.size;
      fileName ||= basename(source);
      chunks = async function* () {
        const file = await local(() => open(source, "r"));
        try {
          for (;;) {
            const buffer = Buffer.allocUnsafe(CHUNK_SIZE);
            let filled = 0;
            while (filled < CHUNK_SIZE) {
              const { bytesRead } = await file.read(buffer, filled, CHUNK_SIZE - filled);
              if (bytesRead === 0) break;
              filled += bytesRead;
            }
            if (filled === 0) return;
            yield buffer.subarray(0, filled);
          }
        } finally {
          await file.close();
        }
      };
    } else {
      const data = source;
      total = data.length;
      chunks = async function* () {
        for (let offset = 0; offset < data.length; offset += CHUNK_SIZE) {
          yield data.subarray(offset, offset + CHUNK_SIZE);
        }
      };
    }
    const accountId = this.accountId;
    async function* requests(): AsyncGenerator<UploadMediaRequest> {
      yield create(UploadMediaRequestSchema, {
        payload: {
          case: "header",
          value: { accountId, kind: kindOf(kind), fileName, size: BigInt(total) },
        },
      });
      for await (const chunk of chunks()) {
        hash.update(chunk);
        sent += chunk.length;
        yield create(UploadMediaRequestSchema, { payload: { case: "chunk", value: chunk } });
        options.onProgress?.(sent, total);
      }
    }
    const response = await call(() => this.mediaService.uploadMedia(requests()));
    const digest = hash.digest("hex");
    if (response.sha256 !== digest || response.size !== BigInt(sent)) {
      throw new ClientError(
        `upload integrity check failed: sent ${sent} bytes sha256 ${digest}, gateway stored ${response.size} bytes sha256 ${response.sha256}`,
      );
    }
    return { mediaId: response.mediaId, size: sent, sha256: digest, mimeType: response.mimeType, response };
  }

  /**
   * Downloads a received (or uploaded) media item into memory: `target` is a media id (a
   * segment's `mediaId`) or `{ messageId, segmentIndex }`. The size and SHA-256 the header
   * states are checked.
   */
  async download(target: MediaRef): Promise<Downloaded> {
    return this.downloadAll(() => this.mediaStream(target));
  }

  /**
   * Streams a media item into the file `path` (written as `<path>.part`, renamed once complete
   * and checked; nothing is left behind on failure) and returns the header.
   */
  async downloadTo(
    target: MediaRef,
    path: string,
    options: { onProgress?: (received: number, total: number) => void } = {},
  ): Promise<DownloadMediaHeader> {
    return this.downloadFile(() => this.mediaStream(target), path, options.onProgress);
  }

  /**
   * Downloads a file of a group's files (a `GroupFile.fileId` of `listGroupFiles`) into memory,
   * checking the size and SHA-256 the header states.
   */
  async downloadGroupFile(fileId: string, options: { groupId?: number | bigint } = {}): Promise<Downloaded> {
    checkKeys(options, ["groupId"], "downloadGroupFile(fileId, options)");
    const request = this.groupFileRequest(fileId, options.groupId);
    return this.downloadAll(() => this.mediaService.downloadGroupFile(request));
  }

  /**
   * Streams a group file into `path` as `downloadTo` does, and returns the header (kind FILE, the
   * file's name; an empty media id).
   */
  async downloadGroupFileTo(
    fileId: string,
    path: string,
    options: { groupId?: number | bigint; onProgress?: (received: number, total: number) => void } = {},
  ): Promise<DownloadMediaHeader> {
    checkKeys(options, ["groupId", "onProgress"], "downloadGroupFileTo(fileId, path, options)");
    const request = this.groupFileRequest(fileId, options.groupId);
    return this.downloadFile(() => this.mediaService.downloadGroupFile(request), path, options.onProgress);
  }

  private groupFileRequest(fileId: string, groupId: number | bigint | undefined) {
    if (typeof fileId !== "string" || fileId === "") {
      throw new ClientError("fileId must be a non-empty string", { reason: "INVALID_REQUEST", field: "fileId" });
    }
    return {
      accountId: this.accountId,
      groupId: groupId === undefined ? undefined : positiveId(groupId, "groupId"),
      fileId,
    };
  }

  private mediaStream(target: MediaRef): AsyncIterable<DownloadMediaResponse> {
    const request =
      typeof target === "string"
        ? { accountId: this.accountId, target: { case: "mediaId" as const, value: target } }
        : {
            accountId: this.accountId,
            target: {
              case: "message" as const,
              value: { messageId: BigInt(target.messageId), segmentIndex: target.segmentIndex },
            },
          };
    return this.mediaService.downloadMedia(request);
  }

  private async downloadAll(
    stream: () => AsyncIterable<DownloadMediaResponse | DownloadGroupFileResponse>,
  ): Promise<Downloaded> {
    const parts: Uint8Array[] = [];
    const header = await this.downloadEach(stream, async (chunk) => {
      parts.push(chunk);
    });
    return { header, data: Buffer.concat(parts) };
  }

  private async downloadFile(
    stream: () => AsyncIterable<DownloadMediaResponse | DownloadGroupFileResponse>,
    path: string,
    onProgress: ((received: number, total: number) => void) | undefined,
  ): Promise<DownloadMediaHeader> {
    const partial = `${path}.part`;
    const file = await local(() => open(partial, "w"));
    try {
      const header = await this.downloadEach(
        stream,
        async (chunk) => {
          await local(() => file.write(chunk));
        },
        onProgress,
      );
      await local(() => file.close());
      await local(() => rename(partial, path));
      return header;
    } catch (err) {
      await file.close().catch(() => undefined);
      await rm(partial, { force: true });
      throw err;
    }
  }

  private async downloadEach(
    stream: () => AsyncIterable<DownloadMediaResponse | DownloadGroupFileResponse>,
    sink: (chunk: Uint8Array) => Promise<void>,
    onProgress?: (received: number, total: number) => void,
  ): Promise<DownloadMediaHeader> {
    let header: DownloadMediaHeader | undefined;
    const hash = createHash("sha256");
    let received = 0;
    let broken = "";
    await call(async () => {
      for await (const message of stream()) {
        if (message.payload.case === "header") {
          if (header !== undefined) broken = "the download stream had a second header";
          header = message.payload.value;
        } else if (message.payload.case === "chunk") {
          if (header === undefined) {
            broken = "the download stream did not start with a header";
            return;
          }
          hash.update(message.payload.value);
          received += message.payload.value.length;
          await sink(message.payload.value);
          onProgress?.(received, Number(header.size));
        }
      }
    });
    if (header === undefined) throw new ClientError("the download stream did not start with a header");
    if (broken !== "") throw new ClientError(broken);
    const digest = hash.digest("hex");
    if (digest !== header.sha256 || BigInt(received) !== header.size) {
      throw new ClientError(
        `download integrity check failed: header sha256 ${header.sha256}, received ${received} bytes sha256 ${digest}`,
      );
    }
    return header;
  }

  /**
   * Checks one media item's shape, and that a local path names a regular file: run for every
   * item before the first upload, so a send that would fail on its second file uploads nothing.
   */
  private static async checkMedia(item: unknown, field: string): Promise<void> {
    if (typeof item === "string") {
      if (item.startsWith("http://") || item.startsWith("https://")) return;
      const info = await local(() => stat(item));
      if (!info.isFile()) throw new ClientError(`${item} is not a regular file`, { field });
      return;
    }
    if (item instanceof Uint8Array) return;
    if (typeof item === "object" && item !== null && !Array.isArray(item)) {
      const keys = Object.keys(item).sort().join(",");
      const record = item as Record<string, unknown>;
      if (keys === "mediaId" && typeof record["mediaId"] === "string") return;
      if (keys === "url" && typeof record["url"] === "string") return;
      if (keys === "serverPath" && typeof record["serverPath"] === "string") return;
      if ((keys === "data" || keys === "data,fileName") && record["data"] instanceof Uint8Array) return;
    }
    throw new ClientError(
      `${field}: a media item is a local path, an http(s) URL, bytes, { mediaId }, { url }, { serverPath } or { data, fileName? }`,
      { field },
    );
  }

  private async source(item: MediaInput, kind: MediaKind): Promise<MediaSource> {
    if (typeof item === "string") {
      if (item.startsWith("http://") || item.startsWith("https://")) {
        return create(MediaSourceSchema, { source: { case: "url", value: item } });
      }
      const uploaded = await this.upload(item, kind);
      return create(MediaSourceSchema, { source: { case: "mediaId", value: uploaded.mediaId } });
    }
    if (item instanceof Uint8Array) {
      const uploaded = await this.upload(item, kind);
      return create(MediaSourceSchema, { source: { case: "mediaId", value: uploaded.mediaId } });
    }
    if ("data" in item) {
      const uploaded = await this.upload(item.data, kind, { fileName: item.fileName });
      return create(MediaSourceSchema, { source: { case: "mediaId", value: uploaded.mediaId } });
    }
    if ("mediaId" in item) {
      return create(MediaSourceSchema, { source: { case: "mediaId", value: item.mediaId } });
    }
    if ("url" in item) {
      return create(MediaSourceSchema, { source: { case: "url", value: item.url } });
    }
    return create(MediaSourceSchema, { source: { case: "path", value: item.serverPath } });
  }

  /**
   * Checks the message against the gateway's limits (4 images, 1 video, 20000 characters, 20
   * mentions, ...: a `ClientError` with the gateway's reason, before anything is uploaded) and
   * that local files exist, uploads local media (paths, bytes; a voice with kind `RECORD`), then
   * sends text, images, videos, a voice and a file to `groupId` (undefined: the account's only whitelisted group) or to the private
   * chat `message.userId`; `replyTo` quotes a message and `mentions` / `mentionAll` mention
   * members, in the first message. `rateLimitWaitMs(response)` is how long the gateway's rate
   * limits held the send back.
   */
  async send(groupId: number | bigint | undefined, message: SendOptions): Promise<SendMessageResponse> {
    checkKeys(message, SEND_OPTIONS, "send(groupId, message)");
    const imageItems = message.images ?? [];
    const videoItems = message.videos ?? [];
    const voiceItems = message.voices ?? [];
    const mentions = message.mentions ?? [];
    checkSend({
      groupId,
      userId: message.userId,
      text: message.text ?? "",
      images: imageItems.length,
      videos: videoItems.length,
      voices: voiceItems.length,
      hasFile: message.file !== undefined,
      replyTo: message.replyTo,
      mentions,
      mentionAll: message.mentionAll ?? false,
      idempotencyKey: message.idempotencyKey ?? "",
    });
    for (const [i, image] of imageItems.entries()) await Client.checkMedia(image, `images[${i}]`);
    for (const [i, video] of videoItems.entries()) await Client.checkMedia(video, `videos[${i}]`);
    for (const [i, voice] of voiceItems.entries()) await Client.checkMedia(voice, `voices[${i}]`);
    if (message.file !== undefined) await Client.checkMedia(message.file, "file");
    const images: MediaSource[] = [];
    for (const image of imageItems) images.push(await this.source(image, MediaKind.IMAGE));
    const videos: MediaSource[] = [];
    for (const video of videoItems) videos.push(await this.source(video, MediaKind.VIDEO));
    const voices: MediaSource[] = [];
    for (const voice of voiceItems) voices.push(await this.source(voice, MediaKind.RECORD));
    const requester = onBehalfOf(message.onBehalfOf, "send(groupId, message)");
    const file = message.file === undefined ? undefined : await this.source(message.file, MediaKind.FILE);
    return call(() =>
      this.messageService.sendMessage({
        accountId: this.accountId,
        groupId: groupId === undefined ? undefined : positiveId(groupId, "groupId"),
        text: message.text ?? "",
        images,
        videos,
        voices,
        file,
        fileName: message.fileName ?? "",
        idempotencyKey: message.idempotencyKey ?? "",
        userId: message.userId === undefined ? undefined : positiveId(message.userId, "userId"),
        replyToMessageId: message.replyTo === undefined ? undefined : BigInt(message.replyTo),
        mentionUserIds: mentions.map((id) => BigInt(id)),
        mentionAll: message.mentionAll ?? false,
        onBehalfOf: requester,
      }),
    );
  }

  /**
   * Answers `message` (an event from `events()`, its `MessageEvent`, or a `ChatMessage`) in its
   * own chat: its group, else its private chat, quoting it (`replyTo`) unless `quote: false`.
   * The other options are `send`'s.
   */
  async reply(
    message: MessageLike,
    text: string,
    options: Omit<SendOptions, "userId" | "replyTo" | "text"> & { quote?: boolean } = {},
  ): Promise<SendMessageResponse> {
    const { quote, ...rest } = options;
    for (const key of ["userId", "replyTo", "text"]) {
      if (key in rest) {
        throw new ClientError(`reply(message, text, options): ${key} is decided by the message and text`, {
          field: key,
        });
      }
    }
    const target = replyTarget(message, quote ?? true);
    return this.send(target.groupId, { ...rest, text, userId: target.userId, replyTo: target.replyTo });
  }

  /**
   * A reply to a received message in one call: to its chat, quoting it, sent on behalf of its
   * sender (`onBehalfOf: { messageId }`: the gateway's `[policy]` rules decide by the sender's
   * role). The other options are `send`'s.
   */
  async replyFor(
    message: MessageLike,
    text: string,
    options: Omit<SendOptions, "userId" | "replyTo" | "text" | "onBehalfOf"> = {},
  ): Promise<SendMessageResponse> {
    for (const key of ["quote", "onBehalfOf"]) {
      if (key in options) {
        throw new ClientError(`replyFor(message, text, options): ${key} is decided by the message`, { field: key });
      }
    }
    const messageId = chatMessage(message).messageId;
    return this.reply(message, text, { ...options, onBehalfOf: { messageId } });
  }

  /** One message by id, its quote resolved one level deep, with its history line. */
  async getMessage(messageId: number | bigint): Promise<GetMessageResponse> {
    return call(() => this.messageService.getMessage({ accountId: this.accountId, messageId: BigInt(messageId) }));
  }

  /**
   * Recalls (撤回) a message: the bot's own within 2 minutes, or a member's when the bot is a group
   * admin; on behalf of `onBehalfOf` (`{ messageId }` / `{ userId }`; undefined: nobody).
   */
  async recall(messageId: number | bigint, options: { onBehalfOf?: OnBehalfOfOption } = {}): Promise<void> {
    checkKeys(options, ["onBehalfOf"], "recall(messageId, options)");
    const requester = onBehalfOf(options.onBehalfOf, "recall(messageId, options)");
    await call(() =>
      this.messageService.recallMessage({ accountId: this.accountId, messageId: BigInt(messageId), onBehalfOf: requester }),
    );
  }

  /** The messages of a merged-forward bundle (`ForwardSegment.id`); nested bundles stay forward segments. */
  async getForward(forwardId: string): Promise<GetForwardMessagesResponse> {
    return call(() => this.messageService.getForwardMessages({ accountId: this.accountId, forwardId }));
  }
}
