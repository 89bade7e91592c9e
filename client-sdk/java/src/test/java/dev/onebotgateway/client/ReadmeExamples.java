package dev.onebotgateway.client;

import dev.onebotgateway.v1.Account;
import dev.onebotgateway.v1.Approval;
import dev.onebotgateway.v1.AuditDecision;
import dev.onebotgateway.v1.AuditRecord;
import dev.onebotgateway.v1.ListAuditRecordsRequest;
import dev.onebotgateway.v1.ListAuditRecordsResponse;
import dev.onebotgateway.v1.CallToolResponse;
import dev.onebotgateway.v1.Event;
import dev.onebotgateway.v1.EventKind;
import dev.onebotgateway.v1.SearchMessagesRequest;
import dev.onebotgateway.v1.SearchMessagesResponse;
import dev.onebotgateway.v1.StreamEventsRequest;
import io.grpc.Context;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import dev.onebotgateway.v1.PokeMemberResponse;
import dev.onebotgateway.v1.SendMessageResponse;
import dev.onebotgateway.v1.Tool;
import dev.onebotgateway.v1.ChatMessage;
import dev.onebotgateway.v1.DownloadMediaHeader;
import dev.onebotgateway.v1.GetForwardMessagesResponse;
import dev.onebotgateway.v1.GetHistoryResponse;
import dev.onebotgateway.v1.GetMessageResponse;
import dev.onebotgateway.v1.Segment;
import dev.onebotgateway.v1.Group;
import dev.onebotgateway.v1.ListGroupMembersResponse;
import dev.onebotgateway.v1.ListGroupsResponse;
import dev.onebotgateway.v1.MediaKind;
import dev.onebotgateway.v1.EssenceMessage;
import dev.onebotgateway.v1.GroupFile;
import dev.onebotgateway.v1.GroupFolder;
import dev.onebotgateway.v1.ListGroupFilesRequest;
import dev.onebotgateway.v1.ListGroupFilesResponse;
import dev.onebotgateway.v1.MuteMemberResponse;
import dev.onebotgateway.v1.ReactToMessageResponse;
import java.util.Map;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The README's examples, one method per RPC. Everything between a {@code // region: <name>} and
 * {@code // endregion} line is copied verbatim into README.md (ReadmeTest checks it) and run by
 * E2eTest against a real gateway.
 */
final class ReadmeExamples {
  private ReadmeExamples() {}

  static Client connect() throws IOException {
    // region: connect
    String addr = System.getenv().getOrDefault("ONEBOT_GATEWAY_ADDR", "http://127.0.0.1:50051");
    Client client =
        Client.builder(addr)
            .token(System.getenv("ONEBOT_GATEWAY_TOKEN")) // sent as "authorization: Bearer <token>"
            // For TLS: an https:// address, plus .caFile(Path.of("ca.pem")) for a private CA.
            .build();
    // endregion
    return client;
  }

  static String health(Client client) {
    // region: health
    String status = client.health(""); // or Client.ACCOUNT_HEALTH_SERVICE_PREFIX + "default"
    System.out.println("gateway: " + status); // SERVING
    // endregion
    return status;
  }

  static List<Account> accounts(Client client) {
    // region: accounts
    List<Account> accounts = client.accounts();
    for (Account account : accounts) {
      System.out.println(account.getAccountId() + " " + account.getNickname() + " " + account.getGroupsList());
      // How the gateway pages this peer's history, learned from its own pages.
      System.out.println(account.getHistoryAnchor() + " " + account.getAnchorIncluded() + " " + account.getHistoryAnchorSource());
    }
    // endregion
    return accounts;
  }

  static GetHistoryResponse history(Client client) {
    // region: history
    GetHistoryResponse page = client.history(Client.groupChat(20000003), 5, null);
    System.out.println(page.getRendered()); // [HH:mm:ss] 名字(QQ号): 文本, oldest first
    if (page.hasNextAnchorMessageId()) {
      GetHistoryResponse older = client.history(Client.groupChat(20000003), 5, page.getNextAnchorMessageId());
      System.out.println(older.getMessagesCount() + " older messages");
    }
    // endregion
    return page;
  }

  static ListGroupMembersResponse members(Client client) {
    // region: members
    ListGroupMembersResponse members = client.members(20000003, 5, null);
    System.out.println(members.getRendered()); // 名字(QQ号) — role, plus a truncation line
    System.out.println(members.getShown() + " of " + members.getTotal() + " shown");
    // endregion
    return members;
  }

  static ListGroupsResponse groups(Client client) {
    // region: groups
    ListGroupsResponse groups = client.groups();
    for (Group group : groups.getGroupsList()) {
      System.out.println(group.getGroupId() + " " + group.getGroupName() + " " + group.getWhitelisted());
    }
    // endregion
    return groups;
  }

  static Uploaded upload(Client client, Path path) throws IOException {
    // region: upload
    // Streams the file in 256 KiB chunks; the SHA-256 is checked against the gateway's.
    Uploaded uploaded = client.upload(path, MediaKind.MEDIA_KIND_IMAGE);
    System.out.println(uploaded.mediaId() + " " + uploaded.size() + " " + uploaded.sha256());
    // endregion
    return uploaded;
  }

  static Downloaded download(Client client, Path dir) throws IOException {
    Downloaded picture = null;
    // region: download
    // A received picture (group 20000002's morning one): its segment's media id, or a message id
    // and segment index. Sizes and SHA-256 are checked against the header.
    GetHistoryResponse page = client.history(Client.groupChat(20000002), 30, null);
    for (ChatMessage message : page.getMessagesList()) {
      for (int index = 0; index < message.getSegmentsCount(); index++) {
        Segment segment = message.getSegments(index);
        if (segment.hasImage()) {
          picture = client.download(MediaRef.id(segment.getImage().getMediaId()));
          System.out.println(picture.header().getMimeType() + " " + picture.header().getSha256());
          // Or stream it into a file, by message id and segment index:
          DownloadMediaHeader header =
              client.downloadTo(MediaRef.message(message.getMessageId(), index), dir.resolve("picture"), null);
          System.out.println("saved " + header.getFileName() + " " + header.getSize());
        }
      }
    }
    // endregion
    return picture;
  }

  static GatewayException errors(Client client) {
    GatewayException caught = null;
    // region: errors
    try {
      client.members(0, 0, null);
    } catch (GatewayException err) {
      // code INVALID_ARGUMENT, reason INVALID_REQUEST, metadata, the offending field
      System.out.println(err.code() + " " + err.reason() + " " + err.metadata() + " " + err.fieldViolations());
      err.retryDelay().ifPresent(delay -> System.out.println("retry after " + delay)); // RetryInfo
      caught = err;
    }
    // endregion
    return caught;
  }

  static SendMessageResponse send(Client client, Path image) throws IOException {
    // region: send
    // Local files are uploaded first (streamed), then sent by media id.
    SendMessageResponse sent =
        client.send(OutgoingMessage.toGroup(20000003).text("hello from Java").image(Media.path(image)));
    System.out.println("message ids " + sent.getMessageIdsList() + " queued " + sent.getQueued());
    // How long the gateway's rate limits held the send back (a java.time.Duration).
    System.out.println("waited " + Messages.rateLimitWait(sent));
    // endregion
    return sent;
  }

  static ClientException limits(Client client, Path image) throws IOException {
    ClientException refused = null;
    // region: limits
    OutgoingMessage five = OutgoingMessage.toGroup(20000003).text("five pictures");
    for (int i = 0; i < 5; i++) {
      five.image(Media.path(image));
    }
    try {
      client.send(five);
    } catch (ClientException err) { // an IllegalArgumentException
      // Refused here, before anything was uploaded, with the reason the gateway would give:
      // Optional[TOO_MANY_IMAGES] Optional[images] 5 images; at most 4 (TOO_MANY_IMAGES)
      System.out.println(err.reason() + " " + err.field() + " " + err.getMessage());
      refused = err;
    } catch (GatewayException err) { // the call failed
      System.out.println("failed: " + err.getMessage());
      throw err;
    }
    // endregion
    return refused;
  }

  static SendMessageResponse agent(Client client, Long handled) throws IOException {
    SendMessageResponse answer = null;
    // region: agent
    // Answer each message that @s the bot, in its own chat (group or private), quoting it.
    // handled is the sequence number of the last event answered (null: from now on).
    StreamEventsRequest.Builder request = StreamEventsRequest.newBuilder().addKinds(EventKind.EVENT_KIND_MESSAGE);
    if (handled != null) {
      request.setAfterSequence(handled);
    }
    try (EventStream events = client.events(request.build())) {
      while (events.hasNext()) {
        Event event = events.next();
        // includeAll true: @全体成员 too
        if (event.getMessage().getSelfSent() || !Messages.mentionsMe(event, false)) {
          continue;
        }
        System.out.println(event.getMessage().getRendered()); // [HH:mm:ss] 名字(QQ号): @沙盒 在吗
        answer = client.reply(event, "在的"); // to the event's chat, quoting its message
        handled = event.getSequence();
        break; // an agent keeps following the stream
      }
    }
    // endregion
    return answer;
  }

  static GetMessageResponse conversation(Client client) throws IOException {
    // region: conversation
    GetHistoryResponse page = client.history(Client.groupChat(20000003), 20, null);
    ChatMessage last = page.getMessages(page.getMessagesCount() - 1);
    // Quote the newest message and mention its sender, in one message.
    SendMessageResponse sent =
        client.send(
            OutgoingMessage.toGroup(20000003)
                .text("收到")
                .replyTo(last.getMessageId())
                .mention(last.getSender().getUserId()));
    GetMessageResponse reply = client.getMessage(sent.getMessageIds(0));
    System.out.println(reply.getRendered()); // [HH:mm:ss] 沙盒(…): [回复 名字: 文本]@名字收到
    // A private chat (the account's `users` whitelist), recalled within QQ's 2 minutes.
    SendMessageResponse privately = client.send(OutgoingMessage.toUser(10001).text("私聊一句"));
    client.recall(privately.getMessageIds(0));
    // Open the first merged-forward bundle of the page.
    String forwardId =
        page.getMessagesList().stream()
            .flatMap(m -> m.getSegmentsList().stream())
            .filter(Segment::hasForward)
            .map(seg -> seg.getForward().getId())
            .findFirst()
            .orElseThrow();
    GetForwardMessagesResponse bundle = client.getForward(forwardId);
    System.out.println(bundle.getRendered()); // one line per forwarded message
    // endregion
    return reply;
  }

  static PokeMemberResponse poke(Client client) {
    // region: poke
    PokeMemberResponse poked = client.poke(20000003L, 10001);
    System.out.println("poked " + poked.getUserId() + " in " + poked.getGroupId());
    // endregion
    return poked;
  }

  static CallToolResponse tools(Client client) {
    // region: tools
    for (Tool tool : client.listTools()) {
      System.out.println(tool.getName() + " " + tool.getInputSchemaJson());
    }
    CallToolResponse result = client.callTool("qq_get_group_members", "{\"groupId\": 20000003, \"limit\": 2}");
    // A failed tool call is a normal result: isError, text = details.error.
    System.out.println(result.getIsError() + " " + result.getText());
    // endregion
    return result;
  }

  static Event events(Client client) throws Exception {
    Event first;
    // region: events
    // Replays the buffered events after sequence 0, then follows new ones.
    try (Context.CancellableContext scope = Context.current().withCancellation()) {
      first =
          scope.call(
              () -> {
                Iterator<Event> events =
                    client.events(
                        StreamEventsRequest.newBuilder().addKinds(EventKind.EVENT_KIND_POKE).setAfterSequence(0).build());
                Event event = events.next();
                if (event.hasPoke()) {
                  System.out.println(
                      event.getSequence() + " " + event.getPoke().getUserId() + " poked " + event.getPoke().getTargetId());
                }
                return event;
              });
    } // closing the context cancels the stream
    // endregion
    return first;
  }

  static List<SearchMessagesResponse> search(Client client) {
    List<SearchMessagesResponse> pages = new ArrayList<>();
    // region: search
    // The archive's messages containing 开会 in the last 7 days, newest page first (each page
    // oldest first); the iterator fetches each page when it is asked for.
    Iterator<SearchMessagesResponse> search =
        client.search(
            SearchMessagesRequest.newBuilder()
                .setQuery("开会")
                .setChat(Client.groupChat(20000003))
                .setSince(Client.timestamp(Instant.now().minus(Duration.ofDays(7))))
                .build());
    while (search.hasNext()) {
      SearchMessagesResponse page = search.next();
      System.out.println(page.getRendered()); // [HH:mm:ss] 名字(QQ号): 文本
      pages.add(page);
    }
    // endregion
    return pages;
  }

  /**
   * Shown in the README; it needs a gateway with {@code [policy]} rules and an approver token, so
   * no e2e test runs it (GovernanceTest covers the helpers against a fake gateway).
   */
  static void governance(Client client, Client approver, ChatMessage received) throws IOException {
    // region: governance
    // Answer a received message on behalf of its sender: to its chat, quoting it; the
    // gateway's [policy] rules decide by the sender's role there.
    try {
      client.send(OutgoingMessage.replyFor(received).text("好的"));
    } catch (GatewayException err) {
      if (!err.isApprovalPending()) {
        throw err; // e.g. err.isPolicyDenied(): refused for this role
      }
      // Held for a bot owner's approval (they were asked in QQ): do not retry, wait for it.
      Approval approval = client.waitApproval(err.approvalId().orElseThrow(), Duration.ofMinutes(5));
      if (Client.isApprovalOpen(approval)) {
        // Still pending after the wait: decide with a token that has approve = true
        // (approver.reject(id) rejects instead).
        approval = approver.approve(approval.getApprovalId());
      }
      System.out.println(approval.getState() + " " + approval.getMessageIdsList()); // APPROVAL_STATE_EXECUTED [...]
    }
    // The audit trail of held sends, newest first, one page at a time.
    Iterator<ListAuditRecordsResponse> audit =
        client.audit(
            ListAuditRecordsRequest.newBuilder()
                .setAction("send")
                .setDecision(AuditDecision.AUDIT_DECISION_PENDING)
                .build());
    while (audit.hasNext()) {
      for (AuditRecord record : audit.next().getRecordsList()) {
        System.out.println(record.getTime() + " " + record.getRequesterUserId() + " " + record.getSummary());
      }
    }
    // endregion
  }

  static Map<GroupFile, Downloaded> groupFiles(Client client, Path dir) throws IOException {
    Map<GroupFile, Downloaded> downloaded = new java.util.LinkedHashMap<>();
    // region: groupFiles
    // The root folder of group 20000003's files (群文件): the iterator fetches each page when it
    // is asked for; each page lists its folders first, then its files.
    Iterator<ListGroupFilesResponse> pages =
        client.listGroupFiles(ListGroupFilesRequest.newBuilder().setGroupId(20000003L).build());
    while (pages.hasNext()) {
      ListGroupFilesResponse page = pages.next();
      for (GroupFolder folder : page.getFoldersList()) {
        System.out.println(folder.getName() + "/ (" + folder.getFileCount() + " files)");
      }
      for (GroupFile file : page.getFilesList()) {
        // Into memory, or streamed into a file; both check the header's size and SHA-256.
        Downloaded got = client.downloadGroupFile(20000003L, file.getFileId());
        System.out.println(file.getName() + " " + got.data().length + " bytes " + got.header().getMimeType());
        DownloadMediaHeader header =
            client.downloadGroupFileTo(20000003L, file.getFileId(), dir.resolve("group-file"), null);
        System.out.println("saved " + header.getFileName() + " " + header.getSize());
        downloaded.put(file, got);
      }
    }
    // endregion
    return downloaded;
  }

  static List<EssenceMessage> react(Client client) throws IOException {
    // region: react
    // React to a group message with 赞 (QQ face 76; a Unicode emoji is its code point, "128077").
    SendMessageResponse sent = client.send(OutgoingMessage.toGroup(20000003).text("react to me"));
    ReactToMessageResponse reacted = client.react(sent.getMessageIds(0), "76");
    System.out.println("reacted in " + reacted.getGroupId());
    // The group's essence messages (精华), newest marking first, every page.
    List<EssenceMessage> essence = client.essenceMessages(20000003L);
    for (EssenceMessage entry : essence) {
      System.out.println(
          entry.getMessage().getSender().getUserId() + " " + entry.getMessage().getText()
              + " marked by " + entry.getOperatorName());
    }
    // endregion
    return essence;
  }

  static void typing(Client client) {
    // region: typing
    // "正在输入" in the private chat with 10001 (a user of the `users` whitelist) while the
    // model thinks. A courtesy: never let it stop the answer (some implementations have no
    // such action: err.isNotSupportedByImplementation(), and nothing is sent).
    try {
      client.setTyping(10001);
    } catch (GatewayException err) {
      System.out.println("no typing indicator: " + err.reason().orElse(err.code().name()));
    }
    // endregion
  }

  static GatewayException moderation(Client client) {
    GatewayException refused = null;
    // region: moderation
    // Mute, mute-all, kick and set-card are refused unless a [[policy.rules]] entry names the
    // action (mute, mute_all, kick, set_card); the sandbox has none, so this is POLICY_DENIED.
    try {
      MuteMemberResponse muted = client.muteMember(20000003L, 10003, Duration.ofMinutes(10));
      System.out.println("muted " + muted.getUserId() + " in " + muted.getGroupId());
    } catch (GatewayException err) {
      // Also: err.isBotNotAdmin() (the bot is not an admin), err.isProtectedMember() (the owner,
      // the bot).
      if (!err.isPolicyDenied()) {
        throw err;
      }
      System.out.println("no policy rule allows it, rule = " + err.metadata().get("rule"));
      refused = err;
    }
    // endregion
    return refused;
  }
}
