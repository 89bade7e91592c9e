package dev.onebotgateway.client;

import com.google.protobuf.ByteString;
import dev.onebotgateway.v1.DownloadGroupFileRequest;
import dev.onebotgateway.v1.DownloadGroupFileResponse;
import dev.onebotgateway.v1.EssenceMessage;
import dev.onebotgateway.v1.GroupFile;
import dev.onebotgateway.v1.KickMemberRequest;
import dev.onebotgateway.v1.KickMemberResponse;
import dev.onebotgateway.v1.ListEssenceRequest;
import dev.onebotgateway.v1.ListEssenceResponse;
import dev.onebotgateway.v1.ListGroupFilesRequest;
import dev.onebotgateway.v1.ListGroupFilesResponse;
import dev.onebotgateway.v1.MuteAllRequest;
import dev.onebotgateway.v1.MuteAllResponse;
import dev.onebotgateway.v1.MuteMemberRequest;
import dev.onebotgateway.v1.MuteMemberResponse;
import dev.onebotgateway.v1.ReactToMessageRequest;
import dev.onebotgateway.v1.ReactToMessageResponse;
import dev.onebotgateway.v1.SetEssenceRequest;
import dev.onebotgateway.v1.SetEssenceResponse;
import dev.onebotgateway.v1.SetMemberCardRequest;
import dev.onebotgateway.v1.SetMemberCardResponse;
import dev.onebotgateway.v1.SetTypingRequest;
import dev.onebotgateway.v1.Account;
import dev.onebotgateway.v1.AccountServiceGrpc;
import dev.onebotgateway.v1.AccountServiceOuterClass;
import dev.onebotgateway.v1.AgentToolServiceGrpc;
import dev.onebotgateway.v1.Approval;
import dev.onebotgateway.v1.ApprovalServiceGrpc;
import dev.onebotgateway.v1.ApprovalState;
import dev.onebotgateway.v1.AuditServiceGrpc;
import dev.onebotgateway.v1.DecideApprovalRequest;
import dev.onebotgateway.v1.GetApprovalRequest;
import dev.onebotgateway.v1.ListApprovalsRequest;
import dev.onebotgateway.v1.ListAuditRecordsRequest;
import dev.onebotgateway.v1.ListAuditRecordsResponse;
import dev.onebotgateway.v1.OnBehalfOf;
import dev.onebotgateway.v1.CallToolRequest;
import dev.onebotgateway.v1.CallToolResponse;
import dev.onebotgateway.v1.Chat;
import dev.onebotgateway.v1.ChatMessage;
import dev.onebotgateway.v1.DownloadMediaHeader;
import dev.onebotgateway.v1.DownloadMediaRequest;
import dev.onebotgateway.v1.DownloadMediaResponse;
import dev.onebotgateway.v1.Event;
import dev.onebotgateway.v1.EventServiceGrpc;
import dev.onebotgateway.v1.GetForwardMessagesRequest;
import dev.onebotgateway.v1.GetForwardMessagesResponse;
import dev.onebotgateway.v1.GetHistoryRequest;
import dev.onebotgateway.v1.GetHistoryResponse;
import dev.onebotgateway.v1.GetMessageRequest;
import dev.onebotgateway.v1.GetMessageResponse;
import dev.onebotgateway.v1.GroupServiceGrpc;
import dev.onebotgateway.v1.ListAccountsRequest;
import dev.onebotgateway.v1.ListGroupMembersRequest;
import dev.onebotgateway.v1.ListGroupMembersResponse;
import dev.onebotgateway.v1.ListGroupsRequest;
import dev.onebotgateway.v1.ListGroupsResponse;
import dev.onebotgateway.v1.ListToolsRequest;
import dev.onebotgateway.v1.MediaKind;
import dev.onebotgateway.v1.MediaServiceGrpc;
import dev.onebotgateway.v1.MediaSource;
import dev.onebotgateway.v1.MessageMediaRef;
import dev.onebotgateway.v1.MessageServiceGrpc;
import dev.onebotgateway.v1.PokeMemberRequest;
import dev.onebotgateway.v1.PokeMemberResponse;
import dev.onebotgateway.v1.SearchMessagesRequest;
import dev.onebotgateway.v1.SearchMessagesResponse;
import dev.onebotgateway.v1.RecallMessageRequest;
import dev.onebotgateway.v1.SendMessageRequest;
import dev.onebotgateway.v1.SendMessageResponse;
import dev.onebotgateway.v1.StreamEventsRequest;
import dev.onebotgateway.v1.Tool;
import dev.onebotgateway.v1.UploadMediaHeader;
import dev.onebotgateway.v1.UploadMediaRequest;
import dev.onebotgateway.v1.UploadMediaResponse;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ChannelCredentials;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ForwardingClientCall;
import io.grpc.Context;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.AbstractStub;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.MetadataUtils;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A connection to one onebot-gateway: one method per RPC, {@link #upload} (streams a file in
 * 256 KiB chunks), {@link #send} (checks the gateway's limits, then uploads local media first)
 * and {@link #reply}. Every failed call throws {@link GatewayException}; an argument refused
 * before any call throws {@link ClientException} (an {@link IllegalArgumentException}); a local
 * file that cannot be read or written, and a transfer whose size or SHA-256 does not match, throw
 * {@link IOException}. Thread-safe; close it when done.
 */
public final class Client implements AutoCloseable {
  /** The gateway's default listen address. */
  public static final String DEFAULT_ADDRESS = "http://127.0.0.1:50051";

  /** Size of the chunks {@link #upload} streams. */
  public static final int CHUNK_SIZE = 256 * 1024;

  /**
   * Prefix of the per-account health service names:
   * {@code health(ACCOUNT_HEALTH_SERVICE_PREFIX + id)} is the health of account {@code id}
   * ({@code SERVING} while its OneBot connection is up). The gateway registers these names with its
   * health service; they are not proto services. Built from the API's proto package.
   */
  public static final String ACCOUNT_HEALTH_SERVICE_PREFIX =
      AccountServiceOuterClass.getDescriptor().getPackage() + ".account.";

  /**
   * Request metadata naming the account of a call. Every call sends it (the client's account,
   * {@code default} when empty) so a proxy in front of many gateways can route each account to the
   * gateway holding it; the gateway refuses a request whose account id names another one.
   */
  public static final String ACCOUNT_METADATA_KEY = "x-onebot-account";

  private static final Metadata.Key<String> ACCOUNT_KEY =
      Metadata.Key.of(ACCOUNT_METADATA_KEY, Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> AUTHORIZATION_KEY =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private static final int MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

  private final ManagedChannel managed;
  private final Channel channel;
  private final String accountId;
  private final Duration timeout;

  /** Settings of a {@link Client}. */
  public static final class Builder {
    private final String address;
    private String token;
    private Path caFile;
    private String accountId = "";
    private Duration timeout;
    private Duration notLeaderBudget = NotLeaderRetry.DEFAULT_BUDGET;

    private Builder(String address) {
      this.address = address;
    }

    /** Bearer token, sent as {@code authorization: Bearer <token>} on every call. */
    public Builder token(String token) {
      this.token = token;
      return this;
    }

    /** PEM file of the CA that signed the gateway's certificate (https only). */
    public Builder caFile(Path caFile) {
      this.caFile = caFile;
      return this;
    }

    /** Account the helpers act as (empty: the gateway's {@code default}). */
    public Builder accountId(String accountId) {
      this.accountId = accountId;
      return this;
    }

    /** Deadline of each unary call (none by default). */
    public Builder timeout(Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    /**
     * How long, in all, a unary call refused with {@code UNAVAILABLE} {@code NOT_LEADER} (a standby
     * gateway under {@code [ha]}: nothing was done) is retried (default 30 s; {@link
     * Duration#ZERO} turns it off). Each retry waits the refusal's {@code RetryInfo} delay, or 250
     * ms doubling to 5 s with jitter; the call's deadline also ends it, and then the last {@code
     * NOT_LEADER} error is thrown. No other error is retried, and streaming calls (uploads,
     * downloads) are not. See {@link NotLeaderRetry}.
     */
    public Builder notLeaderRetry(Duration budget) {
      this.notLeaderBudget = budget;
      return this;
    }

    /** Creates the client; the connection is opened on first use. */
    public Client build() throws IOException {
      URI uri = URI.create(address.contains("://") ? address : "http://" + address);
      boolean tls = "https".equals(uri.getScheme());
      if (!tls && !"http".equals(uri.getScheme())) {
        throw new IllegalArgumentException("address must be http://host:port or https://host:port");
      }
      if (!tls && caFile != null) {
        throw new IllegalArgumentException("TLS settings need an https:// address");
      }
      ChannelCredentials credentials;
      if (tls) {
        TlsChannelCredentials.Builder b = TlsChannelCredentials.newBuilder();
        if (caFile != null) {
          b.trustManager(caFile.toFile());
        }
        credentials = b.build();
      } else {
        credentials = InsecureChannelCredentials.create();
      }
      int port = uri.getPort() != -1 ? uri.getPort() : (tls ? 443 : 80);
      ManagedChannel managed =
          Grpc.newChannelBuilderForAddress(uri.getHost(), port, credentials)
              .maxInboundMessageSize(MAX_MESSAGE_BYTES)
              .build();
      if (token != null && !token.chars().allMatch(c -> c >= 0x20 && c <= 0x7e)) {
        managed.shutdownNow();
        throw new IllegalArgumentException("the token must be printable ASCII");
      }
      String account = accountId.isEmpty() ? "default" : accountId;
      if (!account.chars().allMatch(c -> c > 0x20 && c <= 0x7e)) {
        managed.shutdownNow();
        throw new IllegalArgumentException(
            "account id " + account + ": account ids are ASCII letters, digits, _ and -");
      }
      // The retry is the inner interceptor: each attempt carries the token and account.
      Channel channel =
          ClientInterceptors.intercept(
              ClientInterceptors.intercept(managed, new NotLeaderRetry(notLeaderBudget)),
              headers(token, account));
      return new Client(managed, channel, accountId, timeout);
    }
  }

  private Client(ManagedChannel managed, Channel channel, String accountId, Duration timeout) {
    this.managed = managed;
    this.channel = channel;
    this.accountId = accountId;
    this.timeout = timeout;
  }

  /** Settings for a client of the gateway at {@code address} ({@code http://} or {@code https://}). */
  public static Builder builder(String address) {
    return new Builder(address);
  }

  /** The channel (with the token interceptor) for the generated stubs. */
  public Channel channel() {
    return channel;
  }

  /** The account the helpers act as. */
  public String accountId() {
    return accountId;
  }

  private <S extends AbstractStub<S>> S withDeadline(S stub) {
    return timeout == null ? stub : stub.withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static <T> T call(Supplier<T> rpc) {
    try {
      return rpc.get();
    } catch (StatusRuntimeException e) {
      throw GatewayException.from(e);
    }
  }

  /** The chat of a QQ group. */
  public static Chat groupChat(long groupId) {
    return Chat.newBuilder().setGroupId(groupId).build();
  }

  /** The private chat with a QQ user. */
  public static Chat privateChat(long userId) {
    return Chat.newBuilder().setUserId(userId).build();
  }

  /**
   * One page of a chat's history, oldest first ({@code count} 0 = 20). Pass the response's
   * {@code nextAnchorMessageId} as {@code anchor} for the older page; null for the newest.
   */
  public GetHistoryResponse history(Chat chat, int count, Long anchor) {
    GetHistoryRequest.Builder req =
        GetHistoryRequest.newBuilder().setAccountId(accountId).setChat(chat).setCount(count);
    if (anchor != null) {
      req.setAnchorMessageId(anchor);
    }
    return call(() -> withDeadline(MessageServiceGrpc.newBlockingStub(channel)).getHistory(req.build()));
  }

  /**
   * Up to {@code count} messages of a chat sent before {@code until}, from the gateway's archive
   * merged with the peer's history, oldest first ({@code anchor} null = from the newest before
   * {@code until}).
   */
  public GetHistoryResponse historyUntil(Chat chat, int count, Instant until, Long anchor) {
    GetHistoryRequest.Builder req =
        GetHistoryRequest.newBuilder()
            .setAccountId(accountId)
            .setChat(chat)
            .setCount(count)
            .setUntil(timestamp(until));
    if (anchor != null) {
      req.setAnchorMessageId(anchor);
    }
    return call(() -> withDeadline(MessageServiceGrpc.newBlockingStub(channel)).getHistory(req.build()));
  }

  /** A protobuf timestamp of an instant. */
  public static com.google.protobuf.Timestamp timestamp(Instant instant) {
    return com.google.protobuf.Timestamp.newBuilder()
        .setSeconds(instant.getEpochSecond())
        .setNanos(instant.getNano())
        .build();
  }

  /**
   * Searches the gateway's message archive: an iterator over the pages of {@code request}'s
   * matches, newest page first (each page oldest first), fetching each page when it is asked
   * for. An empty account id means the client's account.
   */
  public Iterator<SearchMessagesResponse> search(SearchMessagesRequest request) {
    SearchMessagesRequest first =
        request.getAccountId().isEmpty() ? request.toBuilder().setAccountId(accountId).build() : request;
    return new Iterator<>() {
      private SearchMessagesRequest next = first;

      @Override
      public boolean hasNext() {
        return next != null;
      }

      @Override
      public SearchMessagesResponse next() {
        if (next == null) {
          throw new NoSuchElementException("no more pages");
        }
        SearchMessagesRequest req = next;
        SearchMessagesResponse page =
            call(() -> withDeadline(MessageServiceGrpc.newBlockingStub(channel)).searchMessages(req));
        next =
            page.getNextPageToken().isEmpty()
                ? null
                : req.toBuilder().setPageToken(page.getNextPageToken()).build();
        return page;
      }
    };
  }

  /** One message by id, its quote resolved one level deep, with its history line. */
  public GetMessageResponse getMessage(long messageId) {
    GetMessageRequest req =
        GetMessageRequest.newBuilder().setAccountId(accountId).setMessageId(messageId).build();
    return call(() -> withDeadline(MessageServiceGrpc.newBlockingStub(channel)).getMessage(req));
  }

  /**
   * Recalls (撤回) a message: the bot's own within 2 minutes, or a member's when the bot is a group
   * admin.
   */
  public void recall(long messageId) {
    recall(messageId, null);
  }

  /**
   * Recalls a message on behalf of a QQ user ({@link #onBehalfOfMessage}, {@link
   * #onBehalfOfUser}; null: nobody): the gateway's {@code [policy]} rules decide by their role.
   */
  public void recall(long messageId, OnBehalfOf onBehalfOf) {
    RecallMessageRequest.Builder req =
        RecallMessageRequest.newBuilder().setAccountId(accountId).setMessageId(messageId);
    if (onBehalfOf != null) {
      req.setOnBehalfOf(onBehalfOf);
    }
    call(() -> withDeadline(MessageServiceGrpc.newBlockingStub(channel)).recallMessage(req.build()));
  }

  /** The messages of a merged-forward bundle ({@code ForwardSegment.id}); nested bundles stay forward segments. */
  public GetForwardMessagesResponse getForward(String forwardId) {
    GetForwardMessagesRequest req =
        GetForwardMessagesRequest.newBuilder().setAccountId(accountId).setForwardId(forwardId).build();
    return call(() -> withDeadline(MessageServiceGrpc.newBlockingStub(channel)).getForwardMessages(req));
  }

  /** Members of a group ({@code limit} 0 = 100; {@code noCache} null = cached when fresh). */
  public ListGroupMembersResponse members(long groupId, int limit, Boolean noCache) {
    ListGroupMembersRequest.Builder req =
        ListGroupMembersRequest.newBuilder().setAccountId(accountId).setGroupId(groupId).setLimit(limit);
    if (noCache != null) {
      req.setNoCache(noCache);
    }
    return call(() -> withDeadline(GroupServiceGrpc.newBlockingStub(channel)).listGroupMembers(req.build()));
  }

  /** The groups the account may use. */
  public ListGroupsResponse groups() {
    ListGroupsRequest req = ListGroupsRequest.newBuilder().setAccountId(accountId).build();
    return call(() -> withDeadline(GroupServiceGrpc.newBlockingStub(channel)).listGroups(req));
  }

  /** Pokes {@code userId} in {@code groupId} (null: the account's only whitelisted group). */
  public PokeMemberResponse poke(Long groupId, long userId) {
    return poke(groupId, userId, null);
  }

  /**
   * Pokes on behalf of a QQ user ({@link #onBehalfOfMessage}, {@link #onBehalfOfUser}; null:
   * nobody): the gateway's {@code [policy]} rules decide by their role.
   */
  public PokeMemberResponse poke(Long groupId, long userId, OnBehalfOf onBehalfOf) {
    PokeMemberRequest.Builder req = PokeMemberRequest.newBuilder().setAccountId(accountId).setUserId(userId);
    if (groupId != null) {
      req.setGroupId(groupId);
    }
    if (onBehalfOf != null) {
      req.setOnBehalfOf(onBehalfOf);
    }
    return call(() -> withDeadline(GroupServiceGrpc.newBlockingStub(channel)).pokeMember(req.build()));
  }

  /** Longest mute of {@link #muteMember}: 30 days, the platform's limit. */
  public static final Duration MAX_MUTE = Duration.ofDays(30);
  /** Longest emoji id of {@link #react}, in UTF-8 bytes. */
  public static final int MAX_EMOJI_ID_BYTES = 32;
  /** Longest group card of {@link #setMemberCard}, in UTF-8 bytes. */
  public static final int MAX_CARD_BYTES = 60;

  private static void checkPositive(String field, long value) {
    if (value <= 0) {
      throw new ClientException("INVALID_REQUEST", field, field + " must be positive, got " + value);
    }
  }

  /**
   * An iterator over pages: {@code fetch} reads the page of a request, {@code token} is a page's
   * next page token, {@code next} the request of the page after it.
   */
  private static <Q, R> Iterator<R> pages(
      Q first, Function<Q, R> fetch, Function<R, String> token, java.util.function.BiFunction<Q, String, Q> next) {
    return new Iterator<>() {
      private Q request = first;

      @Override
      public boolean hasNext() {
        return request != null;
      }

      @Override
      public R next() {
        if (request == null) {
          throw new NoSuchElementException("no more pages");
        }
        Q req = request;
        R page = fetch.apply(req);
        request = token.apply(page).isEmpty() ? null : next.apply(req, token.apply(page));
        return page;
      }
    };
  }

  /**
   * Adds the emoji reaction {@code emojiId} (a QQ face id such as {@code "76"}, 赞, or a Unicode
   * emoji's code point in decimal such as {@code "128077"}, 👍) to a group message.
   */
  public ReactToMessageResponse react(long messageId, String emojiId) {
    return react(messageId, emojiId, false, null);
  }

  /**
   * Adds (or with {@code remove}, takes back) a reaction on behalf of a QQ user ({@link
   * #onBehalfOfMessage}, {@link #onBehalfOfUser}; null: nobody).
   */
  public ReactToMessageResponse react(long messageId, String emojiId, boolean remove, OnBehalfOf onBehalfOf) {
    checkPositive("messageId", messageId);
    int bytes = emojiId == null ? 0 : emojiId.getBytes(StandardCharsets.UTF_8).length;
    if (bytes == 0 || bytes > MAX_EMOJI_ID_BYTES) {
      throw new ClientException(
          "INVALID_REQUEST", "emojiId", "emojiId must be 1 to " + MAX_EMOJI_ID_BYTES + " bytes, got " + emojiId);
    }
    ReactToMessageRequest.Builder req =
        ReactToMessageRequest.newBuilder()
            .setAccountId(accountId)
            .setMessageId(messageId)
            .setEmojiId(emojiId)
            .setRemove(remove);
    if (onBehalfOf != null) {
      req.setOnBehalfOf(onBehalfOf);
    }
    return call(() -> withDeadline(MessageServiceGrpc.newBlockingStub(channel)).reactToMessage(req.build()));
  }

  /** Marks a group message as essence (精华); the bot must be a group admin. */
  public SetEssenceResponse setEssence(long messageId) {
    return setEssence(messageId, false, null);
  }

  /** Marks (or with {@code remove}, unmarks) an essence message on behalf of a QQ user. */
  public SetEssenceResponse setEssence(long messageId, boolean remove, OnBehalfOf onBehalfOf) {
    checkPositive("messageId", messageId);
    SetEssenceRequest.Builder req =
        SetEssenceRequest.newBuilder().setAccountId(accountId).setMessageId(messageId).setRemove(remove);
    if (onBehalfOf != null) {
      req.setOnBehalfOf(onBehalfOf);
    }
    return call(() -> withDeadline(MessageServiceGrpc.newBlockingStub(channel)).setEssence(req.build()));
  }

  /**
   * A group's essence messages: an iterator over the pages of {@code request} (group unset: the
   * account's only whitelisted group; page size 1..50, 0 = 20), newest marking first, fetching
   * each page when it is asked for. An empty account id means the client's account.
   */
  public Iterator<ListEssenceResponse> listEssence(ListEssenceRequest request) {
    ListEssenceRequest first =
        request.getAccountId().isEmpty() ? request.toBuilder().setAccountId(accountId).build() : request;
    return pages(
        first,
        req -> call(() -> withDeadline(MessageServiceGrpc.newBlockingStub(channel)).listEssence(req)),
        ListEssenceResponse::getNextPageToken,
        (req, token) -> req.toBuilder().setPageToken(token).build());
  }

  /** Every essence message of a group ({@code groupId} null: the only whitelisted one), all pages read. */
  public List<EssenceMessage> essenceMessages(Long groupId) {
    ListEssenceRequest.Builder req = ListEssenceRequest.newBuilder();
    if (groupId != null) {
      req.setGroupId(groupId);
    }
    List<EssenceMessage> all = new ArrayList<>();
    listEssence(req.build()).forEachRemaining(page -> all.addAll(page.getMessagesList()));
    return all;
  }

  /**
   * Shows "正在输入" (typing) to {@code userId} in their private chat, for example while the model
   * thinks; the user must be in the private whitelist ({@code USER_NOT_ALLOWED}), and
   * implementations without the action answer {@code NOT_SUPPORTED_BY_IMPLEMENTATION} ({@link
   * GatewayException#isNotSupportedByImplementation()}).
   */
  public void setTyping(long userId) {
    setTyping(userId, null);
  }

  /** Shows typing on behalf of a QQ user. */
  public void setTyping(long userId, OnBehalfOf onBehalfOf) {
    checkPositive("userId", userId);
    SetTypingRequest.Builder req = SetTypingRequest.newBuilder().setAccountId(accountId).setUserId(userId);
    if (onBehalfOf != null) {
      req.setOnBehalfOf(onBehalfOf);
    }
    call(() -> withDeadline(MessageServiceGrpc.newBlockingStub(channel)).setTyping(req.build()));
  }

  /**
   * One folder of a group's files (群文件; folder id empty: the root; group unset: the account's
   * only whitelisted group; page size 1..200, 0 = 50): an iterator over the pages, its folders
   * first, then its files, fetching each page when it is asked for. An empty account id means
   * the client's account.
   */
  public Iterator<ListGroupFilesResponse> listGroupFiles(ListGroupFilesRequest request) {
    ListGroupFilesRequest first =
        request.getAccountId().isEmpty() ? request.toBuilder().setAccountId(accountId).build() : request;
    return pages(
        first,
        req -> call(() -> withDeadline(GroupServiceGrpc.newBlockingStub(channel)).listGroupFiles(req)),
        ListGroupFilesResponse::getNextPageToken,
        (req, token) -> req.toBuilder().setPageToken(token).build());
  }

  /**
   * Every file of a folder of a group's files ({@code groupId} null: the only whitelisted group;
   * {@code folderId} empty: the root), all pages read; its sub-folders are left out.
   */
  public List<GroupFile> groupFiles(Long groupId, String folderId) {
    ListGroupFilesRequest.Builder req = ListGroupFilesRequest.newBuilder().setFolderId(folderId);
    if (groupId != null) {
      req.setGroupId(groupId);
    }
    List<GroupFile> all = new ArrayList<>();
    listGroupFiles(req.build()).forEachRemaining(page -> all.addAll(page.getFilesList()));
    return all;
  }

  /**
   * Mutes (禁言) {@code userId} for {@code duration} (whole seconds, a part second rounded up; at
   * most {@link #MAX_MUTE}; zero lifts the mute) in {@code groupId} (null: the account's only
   * whitelisted group). Moderation: refused unless a {@code [[policy.rules]]} entry names {@code
   * mute} ({@link GatewayException#isPolicyDenied()}, metadata {@code rule} = {@code none}); the
   * bot must be an admin ({@link GatewayException#isBotNotAdmin()}); the owner and the bot are
   * never targets ({@link GatewayException#isProtectedMember()}).
   */
  public MuteMemberResponse muteMember(Long groupId, long userId, Duration duration) {
    return muteMember(groupId, userId, duration, null);
  }

  /** Mutes a member on behalf of a QQ user. */
  public MuteMemberResponse muteMember(Long groupId, long userId, Duration duration, OnBehalfOf onBehalfOf) {
    checkPositive("userId", userId);
    if (duration == null || duration.isNegative() || duration.compareTo(MAX_MUTE) > 0) {
      throw new ClientException(
          "INVALID_REQUEST", "duration", "a mute lasts 0 to 30 days, not " + duration);
    }
    long seconds = duration.getSeconds() + (duration.getNano() > 0 ? 1 : 0);
    MuteMemberRequest.Builder req =
        MuteMemberRequest.newBuilder().setAccountId(accountId).setUserId(userId).setDurationSecs(seconds);
    if (groupId != null) {
      req.setGroupId(groupId);
    }
    if (onBehalfOf != null) {
      req.setOnBehalfOf(onBehalfOf);
    }
    return call(() -> withDeadline(GroupServiceGrpc.newBlockingStub(channel)).muteMember(req.build()));
  }

  /** Turns the whole-group mute (全员禁言) on or off. Moderation, as {@link #muteMember}. */
  public MuteAllResponse muteAll(Long groupId, boolean enable) {
    return muteAll(groupId, enable, null);
  }

  /** Turns the whole-group mute on or off on behalf of a QQ user. */
  public MuteAllResponse muteAll(Long groupId, boolean enable, OnBehalfOf onBehalfOf) {
    MuteAllRequest.Builder req = MuteAllRequest.newBuilder().setAccountId(accountId).setEnable(enable);
    if (groupId != null) {
      req.setGroupId(groupId);
    }
    if (onBehalfOf != null) {
      req.setOnBehalfOf(onBehalfOf);
    }
    return call(() -> withDeadline(GroupServiceGrpc.newBlockingStub(channel)).muteAll(req.build()));
  }

  /**
   * Removes (踢出) a member; {@code rejectRejoin} refuses their later join requests. Moderation,
   * as {@link #muteMember}.
   */
  public KickMemberResponse kickMember(Long groupId, long userId, boolean rejectRejoin) {
    return kickMember(groupId, userId, rejectRejoin, null);
  }

  /** Removes a member on behalf of a QQ user. */
  public KickMemberResponse kickMember(Long groupId, long userId, boolean rejectRejoin, OnBehalfOf onBehalfOf) {
    checkPositive("userId", userId);
    KickMemberRequest.Builder req =
        KickMemberRequest.newBuilder().setAccountId(accountId).setUserId(userId).setRejectRejoin(rejectRejoin);
    if (groupId != null) {
      req.setGroupId(groupId);
    }
    if (onBehalfOf != null) {
      req.setOnBehalfOf(onBehalfOf);
    }
    return call(() -> withDeadline(GroupServiceGrpc.newBlockingStub(channel)).kickMember(req.build()));
  }

  /**
   * Sets a member's group card (群名片, at most {@link #MAX_CARD_BYTES}; empty clears it).
   * Moderation, as {@link #muteMember}.
   */
  public SetMemberCardResponse setMemberCard(Long groupId, long userId, String card) {
    return setMemberCard(groupId, userId, card, null);
  }

  /** Sets a member's card on behalf of a QQ user. */
  public SetMemberCardResponse setMemberCard(Long groupId, long userId, String card, OnBehalfOf onBehalfOf) {
    checkPositive("userId", userId);
    String text = card == null ? "" : card;
    int bytes = text.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_CARD_BYTES) {
      throw new ClientException(
          "INVALID_REQUEST", "card", "card is " + bytes + " bytes; at most " + MAX_CARD_BYTES);
    }
    SetMemberCardRequest.Builder req =
        SetMemberCardRequest.newBuilder().setAccountId(accountId).setUserId(userId).setCard(text);
    if (groupId != null) {
      req.setGroupId(groupId);
    }
    if (onBehalfOf != null) {
      req.setOnBehalfOf(onBehalfOf);
    }
    return call(() -> withDeadline(GroupServiceGrpc.newBlockingStub(channel)).setMemberCard(req.build()));
  }

  /**
   * On behalf of the sender of {@code messageId} (a message of the action's chat): the preferred
   * form, the gateway looks the message up.
   */
  public static OnBehalfOf onBehalfOfMessage(long messageId) {
    return OnBehalfOf.newBuilder().setMessageId(messageId).build();
  }

  /** On behalf of the QQ user {@code userId}. */
  public static OnBehalfOf onBehalfOfUser(long userId) {
    return OnBehalfOf.newBuilder().setUserId(userId).build();
  }

  /** Longest wait of {@link #waitApproval} (the gateway's limit). */
  public static final Duration MAX_APPROVAL_WAIT = Duration.ofMinutes(10);

  /**
   * The approvals of the client's account in {@code state} ({@code APPROVAL_STATE_UNSPECIFIED}:
   * every state), newest first.
   */
  public List<Approval> approvals(ApprovalState state) {
    ListApprovalsRequest req =
        ListApprovalsRequest.newBuilder().setAccountId(accountId).setState(state).build();
    return call(() -> withDeadline(ApprovalServiceGrpc.newBlockingStub(channel)).listApprovals(req))
        .getApprovalsList();
  }

  /** One approval, at once. */
  public Approval approval(String approvalId) {
    return waitApproval(approvalId, Duration.ZERO);
  }

  /**
   * One approval once it is no longer pending or executing ({@link #isApprovalOpen}), or after
   * {@code wait} (at most {@link #MAX_APPROVAL_WAIT}), whichever comes first. The call's deadline
   * is stretched to cover the wait.
   */
  public Approval waitApproval(String approvalId, Duration wait) {
    if (wait.isNegative() || wait.compareTo(MAX_APPROVAL_WAIT) > 0) {
      throw new ClientException("INVALID_REQUEST", "wait", "wait must be 0 to 10 minutes, got " + wait);
    }
    GetApprovalRequest.Builder req = GetApprovalRequest.newBuilder().setApprovalId(approvalId);
    ApprovalServiceGrpc.ApprovalServiceBlockingStub stub = ApprovalServiceGrpc.newBlockingStub(channel);
    if (!wait.isZero()) {
      req.setWait(
          com.google.protobuf.Duration.newBuilder().setSeconds(wait.getSeconds()).setNanos(wait.getNano()));
      if (timeout != null) {
        Duration deadline = wait.plusSeconds(10).compareTo(timeout) > 0 ? wait.plusSeconds(10) : timeout;
        stub = stub.withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS);
      }
    } else {
      stub = withDeadline(stub);
    }
    ApprovalServiceGrpc.ApprovalServiceBlockingStub chosen = stub;
    return call(() -> chosen.getApproval(req.build())).getApproval();
  }

  /**
   * Approves (and so executes, before it returns) a pending approval; needs a token with {@code
   * approve = true}. The approval comes back EXECUTED or FAILED.
   */
  public Approval approve(String approvalId) {
    return decide(approvalId, true);
  }

  /** Rejects a pending approval; needs a token with {@code approve = true}. */
  public Approval reject(String approvalId) {
    return decide(approvalId, false);
  }

  private Approval decide(String approvalId, boolean approve) {
    DecideApprovalRequest req =
        DecideApprovalRequest.newBuilder().setApprovalId(approvalId).setApprove(approve).build();
    return call(() -> withDeadline(ApprovalServiceGrpc.newBlockingStub(channel)).decideApproval(req))
        .getApproval();
  }

  /** True while an approval may still run: pending (waiting for a bot owner) or approved (executing). */
  public static boolean isApprovalOpen(Approval approval) {
    return approval.getState() == ApprovalState.APPROVAL_STATE_PENDING
        || approval.getState() == ApprovalState.APPROVAL_STATE_APPROVED;
  }

  /**
   * The audit trail: an iterator over the pages of the records {@code request} selects (since,
   * until, action, target, decision, limit), newest first, fetching each page when it is asked
   * for. An empty account id means the client's account.
   */
  public Iterator<ListAuditRecordsResponse> audit(ListAuditRecordsRequest request) {
    ListAuditRecordsRequest first =
        request.getAccountId().isEmpty() ? request.toBuilder().setAccountId(accountId).build() : request;
    return new Iterator<>() {
      private ListAuditRecordsRequest next = first;

      @Override
      public boolean hasNext() {
        return next != null;
      }

      @Override
      public ListAuditRecordsResponse next() {
        if (next == null) {
          throw new NoSuchElementException("no more pages");
        }
        ListAuditRecordsRequest req = next;
        ListAuditRecordsResponse page =
            call(() -> withDeadline(AuditServiceGrpc.newBlockingStub(channel)).listAuditRecords(req));
        next =
            page.getNextPageToken().isEmpty()
                ? null
                : req.toBuilder().setPageToken(page.getNextPageToken()).build();
        return page;
      }
    };
  }

  /** Every configured account with its connection state. */
  public List<Account> accounts() {
    return call(
        () ->
            withDeadline(AccountServiceGrpc.newBlockingStub(channel))
                .listAccounts(ListAccountsRequest.getDefaultInstance())
                .getAccountsList());
  }

  /** The agent tools with their JSON Schemas. */
  public List<Tool> listTools() {
    return call(
        () ->
            withDeadline(AgentToolServiceGrpc.newBlockingStub(channel))
                .listTools(ListToolsRequest.getDefaultInstance())
                .getToolsList());
  }

  /** Calls an agent tool with a JSON object of arguments; a failed tool call has isError set. */
  public CallToolResponse callTool(String name, String argumentsJson) {
    CallToolRequest req = CallToolRequest.newBuilder().setName(name).setArgumentsJson(argumentsJson).build();
    return call(() -> withDeadline(AgentToolServiceGrpc.newBlockingStub(channel)).callTool(req));
  }

  /**
   * Follows the account's events (an empty account id is filled with the client's) and resumes
   * by itself after a broken connection: see {@link EventStream}. Run it inside a cancellable
   * {@link Context}, or close the stream, to stop; {@code hasNext} is false when the gateway ends
   * the stream.
   */
  public EventStream events(StreamEventsRequest request) {
    StreamEventsRequest req =
        request.getAccountId().isEmpty() ? request.toBuilder().setAccountId(accountId).build() : request;
    String account = req.getAccountId().isEmpty() ? "default" : req.getAccountId();
    Metadata routed = new Metadata();
    routed.put(ACCOUNT_KEY, account);
    return new EventStream(
        ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(routed)), req);
  }

  /**
   * Adds {@code authorization: Bearer <token>} (when set) and the account metadata (unless the
   * call carries its own) to every call.
   */
  private static ClientInterceptor headers(String token, String account) {
    return new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(
          MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
          @Override
          public void start(Listener<R> listener, Metadata headers) {
            if (token != null) {
              headers.put(AUTHORIZATION_KEY, "Bearer " + token);
            }
            if (!headers.containsKey(ACCOUNT_KEY)) {
              headers.put(ACCOUNT_KEY, account);
            }
            super.start(listener, headers);
          }
        };
      }
    };
  }

  /** Health of {@code service} ({@code ""}: the gateway), e.g. {@code SERVING}. */
  public String health(String service) {
    HealthCheckRequest req = HealthCheckRequest.newBuilder().setService(service).build();
    return call(() -> withDeadline(HealthGrpc.newBlockingStub(channel)).check(req)).getStatus().name();
  }

  /** Streams a local file to the gateway (see {@link #upload(InputStream, long, String, MediaKind, BiConsumer)}). */
  public Uploaded upload(Path path, MediaKind kind) throws IOException {
    if (!Files.isRegularFile(path)) {
      throw new IOException(path + " is not a regular file");
    }
    try (InputStream in = Files.newInputStream(path)) {
      return upload(in, Files.size(path), path.getFileName().toString(), kind, null);
    }
  }

  /** Uploads bytes in memory (see {@link #upload(InputStream, long, String, MediaKind, BiConsumer)}). */
  public Uploaded upload(byte[] data, String fileName, MediaKind kind) throws IOException {
    return upload(new ByteArrayInputStream(data), data.length, fileName, kind, null);
  }

  /**
   * Streams {@code size} bytes of {@code in} to the gateway's staging area in {@link
   * #CHUNK_SIZE} chunks (with flow control) and returns the media id. The content is hashed
   * while it streams and checked against the gateway's digest. {@code progress(sent, total)}, when
   * not null, follows each chunk.
   */
  public Uploaded upload(
      InputStream in, long size, String fileName, MediaKind kind, BiConsumer<Long, Long> progress)
      throws IOException {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    CompletableFuture<UploadMediaResponse> done = new CompletableFuture<>();
    long[] sent = {0};
    UploadMediaRequest header =
        UploadMediaRequest.newBuilder()
            .setHeader(
                UploadMediaHeader.newBuilder()
                    .setAccountId(accountId)
                    .setKind(kind)
                    .setFileName(fileName == null ? "" : fileName)
                    .setSize(size))
            .build();
    ClientResponseObserver<UploadMediaRequest, UploadMediaResponse> observer =
        new ClientResponseObserver<>() {
          private boolean headerSent;
          private boolean finished;

          @Override
          public void beforeStart(ClientCallStreamObserver<UploadMediaRequest> requests) {
            requests.setOnReadyHandler(
                () -> {
                  try {
                    if (!headerSent) {
                      requests.onNext(header);
                      headerSent = true;
                    }
                    byte[] buffer = new byte[CHUNK_SIZE];
                    while (requests.isReady() && !finished) {
                      int n = in.readNBytes(buffer, 0, CHUNK_SIZE);
                      if (n <= 0) {
                        finished = true;
                        requests.onCompleted();
                        return;
                      }
                      digest.update(buffer, 0, n);
                      sent[0] += n;
                      requests.onNext(
                          UploadMediaRequest.newBuilder().setChunk(ByteString.copyFrom(buffer, 0, n)).build());
                      if (progress != null) {
                        progress.accept(sent[0], size);
                      }
                    }
                  } catch (IOException e) {
                    finished = true;
                    requests.onError(e);
                    done.completeExceptionally(new UncheckedIOException(e));
                  }
                });
          }

          @Override
          public void onNext(UploadMediaResponse value) {
            done.complete(value);
          }

          @Override
          public void onError(Throwable t) {
            done.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {}
        };
    MediaServiceGrpc.MediaServiceStub stub = MediaServiceGrpc.newStub(channel);
    if (timeout != null) {
      stub = stub.withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
    stub.uploadMedia(observer);
    UploadMediaResponse response;
    try {
      response = done.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while uploading", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UncheckedIOException io) {
        throw io.getCause();
      }
      throw GatewayException.from(e.getCause());
    }
    String hex = HexFormat.of().formatHex(digest.digest());
    if (!response.getSha256().equals(hex) || response.getSize() != sent[0]) {
      throw new IOException(
          "upload integrity check failed: sent "
              + sent[0]
              + " bytes sha256 "
              + hex
              + ", gateway stored "
              + response.getSize()
              + " bytes sha256 "
              + response.getSha256());
    }
    return new Uploaded(response.getMediaId(), sent[0], hex, response.getMimeType(), response);
  }

  private MediaSource source(Media media, MediaKind kind) throws IOException {
    if (media instanceof Media.LocalFile f) {
      return MediaSource.newBuilder().setMediaId(upload(f.path(), kind).mediaId()).build();
    } else if (media instanceof Media.Bytes b) {
      return MediaSource.newBuilder().setMediaId(upload(b.data(), b.fileName(), kind).mediaId()).build();
    } else if (media instanceof Media.Url u) {
      return MediaSource.newBuilder().setUrl(u.url()).build();
    } else if (media instanceof Media.MediaId m) {
      return MediaSource.newBuilder().setMediaId(m.id()).build();
    } else if (media instanceof Media.ServerPath p) {
      return MediaSource.newBuilder().setPath(p.path()).build();
    }
    throw new ClientException(null, "media", "unknown media " + media);
  }

  /**
   * Downloads a received (or uploaded) media item into memory, checking the size and SHA-256 the
   * header states.
   */
  public Downloaded download(MediaRef target) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    DownloadMediaHeader header = download(target, out, null);
    return new Downloaded(header, out.toByteArray());
  }

  /**
   * Streams a media item into the file {@code path}: written as {@code path.part} and renamed
   * once complete and checked, so a failed download leaves nothing behind. {@code progress}
   * (may be null) gets the bytes received and the total after each chunk.
   */
  public DownloadMediaHeader downloadTo(MediaRef target, Path path, BiConsumer<Long, Long> progress)
      throws IOException {
    return toFile(path, out -> download(target, out, progress));
  }

  /** Streams a media item into {@code out} and returns its checked header. */
  public DownloadMediaHeader download(MediaRef target, OutputStream out, BiConsumer<Long, Long> progress)
      throws IOException {
    DownloadMediaRequest.Builder req = DownloadMediaRequest.newBuilder().setAccountId(accountId);
    if (target.mediaId() != null) {
      req.setMediaId(target.mediaId());
    } else {
      req.setMessage(
          MessageMediaRef.newBuilder()
              .setMessageId(target.messageId())
              .setSegmentIndex(target.segmentIndex()));
    }
    return receive(
        () -> withDeadline(MediaServiceGrpc.newBlockingStub(channel)).downloadMedia(req.build()),
        DownloadMediaResponse::hasHeader,
        DownloadMediaResponse::getHeader,
        DownloadMediaResponse::getChunk,
        out,
        progress);
  }

  /**
   * Downloads a file of a group's files (a {@code GroupFile.file_id} of {@link #listGroupFiles};
   * {@code groupId} null: the account's only whitelisted group) into memory, checking the size
   * and SHA-256 the header states.
   */
  public Downloaded downloadGroupFile(Long groupId, String fileId) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    DownloadMediaHeader header = downloadGroupFile(groupId, fileId, out, null);
    return new Downloaded(header, out.toByteArray());
  }

  /**
   * Streams a group file into the file {@code path} as {@link #downloadTo} does; returns the
   * header (kind FILE, the file's name, an empty media id).
   */
  public DownloadMediaHeader downloadGroupFileTo(
      Long groupId, String fileId, Path path, BiConsumer<Long, Long> progress) throws IOException {
    return toFile(path, out -> downloadGroupFile(groupId, fileId, out, progress));
  }

  /** Streams a group file into {@code out} and returns its checked header. */
  public DownloadMediaHeader downloadGroupFile(
      Long groupId, String fileId, OutputStream out, BiConsumer<Long, Long> progress) throws IOException {
    if (fileId == null || fileId.isEmpty()) {
      throw new ClientException("INVALID_REQUEST", "fileId", "fileId must not be empty");
    }
    DownloadGroupFileRequest.Builder req =
        DownloadGroupFileRequest.newBuilder().setAccountId(accountId).setFileId(fileId);
    if (groupId != null) {
      req.setGroupId(groupId);
    }
    return receive(
        () -> withDeadline(MediaServiceGrpc.newBlockingStub(channel)).downloadGroupFile(req.build()),
        DownloadGroupFileResponse::hasHeader,
        DownloadGroupFileResponse::getHeader,
        DownloadGroupFileResponse::getChunk,
        out,
        progress);
  }

  /** A download into an output stream, as {@link #toFile} runs it. */
  @FunctionalInterface
  private interface DownloadInto {
    DownloadMediaHeader run(OutputStream out) throws IOException;
  }

  /**
   * Runs a download into {@code path.part} and renames it to {@code path} once complete and
   * checked; a failed download leaves nothing behind.
   */
  private static DownloadMediaHeader toFile(Path path, DownloadInto download) throws IOException {
    Path partial = path.resolveSibling(path.getFileName() + ".part");
    try {
      DownloadMediaHeader header;
      try (OutputStream out = Files.newOutputStream(partial)) {
        header = download.run(out);
      }
      Files.move(partial, path, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      return header;
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(partial);
      throw e;
    }
  }

  /**
   * Reads a download stream (DownloadMedia, DownloadGroupFile: a header, then chunks) into
   * {@code out} and returns its header once the size and SHA-256 it states are checked.
   */
  private <T> DownloadMediaHeader receive(
      Supplier<Iterator<T>> open,
      Predicate<T> hasHeader,
      Function<T, DownloadMediaHeader> headerOf,
      Function<T, ByteString> chunkOf,
      OutputStream out,
      BiConsumer<Long, Long> progress)
      throws IOException {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    // Cancelled on the way out, so an early exit (an error, a failed write) ends the stream.
    try (Context.CancellableContext scope = Context.current().withCancellation()) {
      Context previous = scope.attach();
      try {
        Iterator<T> responses = call(open);
        if (!call(responses::hasNext)) {
          throw new IOException("the download stream ended before its header");
        }
        T first = call(responses::next);
        if (!hasHeader.test(first)) {
          throw new IOException("the download stream did not start with a header");
        }
        DownloadMediaHeader header = headerOf.apply(first);
        long received = 0;
        while (call(responses::hasNext)) {
          T msg = call(responses::next);
          if (hasHeader.test(msg)) {
            throw new IOException("the download stream had a second header");
          }
          byte[] chunk = chunkOf.apply(msg).toByteArray();
          digest.update(chunk);
          out.write(chunk);
          received += chunk.length;
          if (progress != null) {
            progress.accept(received, header.getSize());
          }
        }
        String actual = HexFormat.of().formatHex(digest.digest());
        if (received != header.getSize() || !actual.equals(header.getSha256())) {
          throw new IOException(
              "download integrity check failed: header sha256 " + header.getSha256() + ", received "
                  + received + " bytes sha256 " + actual);
        }
        return header;
      } finally {
        scope.detach(previous);
      }
    }
  }

  /**
   * Checks the message against the gateway's limits (4 images, 1 video, 1 voice, 20000
   * characters, 20 mentions, ...) and that its local files exist (a {@link ClientException} with the gateway's
   * reason, before anything is uploaded), uploads its local media (in order; a voice with kind
   * {@code MEDIA_KIND_RECORD}), then sends it with
   * SendMessage. {@link Messages#rateLimitWait} of the response is how long the gateway's rate
   * limits held it back.
   */
  public SendMessageResponse send(OutgoingMessage message) throws IOException {
    if (message.forReply) {
      throw new ClientException(
          null, "message", "OutgoingMessage.reply() has no chat: send it with client.reply(message, quote, content)");
    }
    Messages.check(message);
    SendMessageRequest.Builder req =
        SendMessageRequest.newBuilder()
            .setAccountId(accountId)
            .setText(message.text)
            .setFileName(message.fileName)
            .setIdempotencyKey(message.idempotencyKey);
    if (message.groupId != null) {
      req.setGroupId(message.groupId);
    }
    if (message.userId != null) {
      req.setUserId(message.userId);
    }
    if (message.replyTo != null) {
      req.setReplyToMessageId(message.replyTo);
    }
    req.addAllMentionUserIds(message.mentions).setMentionAll(message.mentionAll);
    if (message.onBehalfOf != null) {
      req.setOnBehalfOf(message.onBehalfOf);
    }
    for (Media image : message.images) {
      req.addImages(source(image, MediaKind.MEDIA_KIND_IMAGE));
    }
    for (Media video : message.videos) {
      req.addVideos(source(video, MediaKind.MEDIA_KIND_VIDEO));
    }
    for (Media voice : message.voices) {
      req.addVoices(source(voice, MediaKind.MEDIA_KIND_RECORD));
    }
    if (message.file != null) {
      req.setFile(source(message.file, MediaKind.MEDIA_KIND_FILE));
    }
    return call(() -> withDeadline(MessageServiceGrpc.newBlockingStub(channel)).sendMessage(req.build()));
  }

  /**
   * Answers a message event in its own chat (its group, else its private chat), quoting it.
   *
   * @throws ClientException when the event is not a message event
   */
  public SendMessageResponse reply(Event event, String text) throws IOException {
    if (!event.hasMessage()) {
      throw new ClientException(
          null, "event", "event " + event.getSequence() + " is a " + event.getKindCase() + " event, not a message");
    }
    return reply(event.getMessage().getMessage(), true, OutgoingMessage.reply().text(text));
  }

  /**
   * Answers a message (from an event, history, search, getMessage) in its own chat, quoting it
   * when {@code quote}; {@code content} is an {@link OutgoingMessage#reply()} (text, media,
   * mentions, ...).
   */
  public SendMessageResponse reply(ChatMessage message, boolean quote, OutgoingMessage content)
      throws IOException {
    if (!content.forReply) {
      throw new ClientException(
          null, "content", "the content of a reply is an OutgoingMessage.reply(): its chat is the message's");
    }
    OutgoingMessage out;
    switch (message.getChat().getKindCase()) {
      case GROUP_ID -> out = OutgoingMessage.toGroup(message.getChat().getGroupId());
      case USER_ID -> out = OutgoingMessage.toUser(message.getChat().getUserId());
      default -> throw new ClientException(
          null, "message", "message " + message.getMessageId() + " has no chat to reply in");
    }
    if (quote) {
      if (message.getMessageId() == 0) {
        throw new ClientException(
            null, "message", "this message has no id to quote (a forwarded node): reply with quote false");
      }
      out.replyTo(message.getMessageId());
    }
    content.mentions.forEach(out::mention);
    if (content.mentionAll) {
      out.mentionAll();
    }
    out.text(content.text).idempotencyKey(content.idempotencyKey).onBehalfOf(content.onBehalfOf);
    content.images.forEach(out::image);
    content.videos.forEach(out::video);
    content.voices.forEach(out::voice);
    if (content.file != null) {
      out.file(content.file, content.fileName);
    }
    return send(out);
  }

  /** Closes the connection. */
  @Override
  public void close() {
    managed.shutdown();
    try {
      if (!managed.awaitTermination(5, TimeUnit.SECONDS)) {
        managed.shutdownNow();
      }
    } catch (InterruptedException e) {
      managed.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
