package onebotgateway_test

// The README's examples, one function per RPC. Everything between a "// region: <name>" and
// "// endregion" line is copied verbatim into README.md (readme_test.go checks it) and run by
// e2e_test.go against a real gateway.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	onebotgateway "github.com/onebot-gateway/onebot-gateway/client-sdk/go"
	gatewayv1 "github.com/onebot-gateway/onebot-gateway/client-sdk/go/onebot/gateway/v1"
)

func exampleConnect() (*onebotgateway.Client, error) {
	// region: connect
	addr := os.Getenv("ONEBOT_GATEWAY_ADDR")
	if addr == "" {
		addr = onebotgateway.DefaultAddress
	}
	client, err := onebotgateway.New(onebotgateway.Options{
		Address: addr,
		Token:   os.Getenv("ONEBOT_GATEWAY_TOKEN"), // sent as "authorization: Bearer <token>"
		// For TLS: an https:// address, plus CAFile: "ca.pem" for a private CA.
	})
	if err != nil {
		return nil, err
	}
	// endregion
	return client, nil
}

func exampleHealth(ctx context.Context, client *onebotgateway.Client) (string, error) {
	// region: health
	status, err := client.CheckHealth(ctx, "") // or onebotgateway.AccountHealthServicePrefix + "default"
	if err != nil {
		return "", err
	}
	fmt.Println("gateway:", status) // SERVING
	// endregion
	return status, nil
}

func exampleAccounts(ctx context.Context, client *onebotgateway.Client) ([]string, error) {
	// region: accounts
	accounts, err := client.ListAccounts(ctx)
	if err != nil {
		return nil, err
	}
	for _, a := range accounts {
		fmt.Println(a.GetAccountId(), a.GetNickname(), a.GetGroups())
		// How the gateway pages this peer's history, learned from its own pages.
		fmt.Println(a.GetHistoryAnchor(), a.GetAnchorIncluded(), a.GetHistoryAnchorSource())
	}
	// endregion
	ids := []string{}
	for _, a := range accounts {
		ids = append(ids, a.GetAccountId())
	}
	return ids, nil
}

func exampleHistory(ctx context.Context, client *onebotgateway.Client) (*gatewayv1.GetHistoryResponse, error) {
	// region: history
	page, err := client.History(ctx, onebotgateway.GroupChat(20000003), 5, nil)
	if err != nil {
		return nil, err
	}
	fmt.Println(page.GetRendered()) // [HH:mm:ss] 名字(QQ号): 文本, oldest first
	if page.NextAnchorMessageId != nil {
		older, err := client.History(ctx, onebotgateway.GroupChat(20000003), 5, page.NextAnchorMessageId)
		if err != nil {
			return nil, err
		}
		fmt.Println(len(older.GetMessages()), "older messages")
	}
	// endregion
	return page, nil
}

func exampleMembers(ctx context.Context, client *onebotgateway.Client) (*gatewayv1.ListGroupMembersResponse, error) {
	// region: members
	members, err := client.Members(ctx, 20000003, 5, nil)
	if err != nil {
		return nil, err
	}
	fmt.Println(members.GetRendered()) // 名字(QQ号) — role, plus a truncation line
	fmt.Println(members.GetShown(), "of", members.GetTotal(), "shown")
	// endregion
	return members, nil
}

func exampleGroups(ctx context.Context, client *onebotgateway.Client) (*gatewayv1.ListGroupsResponse, error) {
	// region: groups
	groups, err := client.ListGroups(ctx)
	if err != nil {
		return nil, err
	}
	for _, g := range groups.GetGroups() {
		fmt.Println(g.GetGroupId(), g.GetGroupName(), g.GetWhitelisted())
	}
	// endregion
	return groups, nil
}

func exampleUpload(ctx context.Context, client *onebotgateway.Client, path string) (*onebotgateway.Uploaded, error) {
	// region: upload
	// Streams the file in 256 KiB chunks; the SHA-256 is checked against the gateway's.
	uploaded, err := client.UploadFile(ctx, path, gatewayv1.MediaKind_MEDIA_KIND_IMAGE, onebotgateway.UploadOptions{})
	if err != nil {
		return nil, err
	}
	fmt.Println(uploaded.MediaID, uploaded.Size, uploaded.SHA256, uploaded.MimeType)
	// endregion
	return uploaded, nil
}

func exampleDownload(ctx context.Context, client *onebotgateway.Client, dir string) (*onebotgateway.Downloaded, error) {
	var picture *onebotgateway.Downloaded
	// region: download
	// A received picture (group 20000002's morning one): its segment's media id, or a message id
	// and segment index. Sizes and SHA-256 are checked against the header.
	page, err := client.History(ctx, onebotgateway.GroupChat(20000002), 30, nil)
	if err != nil {
		return nil, err
	}
	for _, message := range page.GetMessages() {
		for index, segment := range message.GetSegments() {
			if image := segment.GetImage(); image != nil {
				picture, err = client.Download(ctx, onebotgateway.ByMediaID(image.GetMediaId()))
				if err != nil {
					return nil, err
				}
				fmt.Println(picture.Header.GetMimeType(), picture.Header.GetSize(), picture.Header.GetSha256())
				// Or stream it into a file, by message id and segment index:
				header, err := client.DownloadTo(ctx, onebotgateway.ByMessage(message.GetMessageId(), int32(index)),
					filepath.Join(dir, "picture"), onebotgateway.DownloadOptions{})
				if err != nil {
					return nil, err
				}
				fmt.Println("saved", header.GetFileName(), header.GetSize())
			}
		}
	}
	// endregion
	return picture, nil
}

func exampleErrors(ctx context.Context, client *onebotgateway.Client) (*onebotgateway.GatewayError, error) {
	// region: errors
	_, err := client.Members(ctx, 0, 0, nil)
	gerr, ok := onebotgateway.AsGatewayError(err)
	if !ok {
		return nil, errors.New("expected a gateway error")
	}
	// code InvalidArgument, reason INVALID_REQUEST, metadata, the offending field
	fmt.Println(gerr.Code, gerr.Reason, gerr.Metadata, gerr.FieldViolations)
	if gerr.RetryDelay > 0 { // from RetryInfo
		fmt.Println("retry after", gerr.RetryDelay)
	}
	// endregion
	return gerr, nil
}

func exampleSend(ctx context.Context, client *onebotgateway.Client, image string) (*gatewayv1.SendMessageResponse, error) {
	// region: send
	// Local files are uploaded first (streamed), then sent by media id.
	group := int64(20000003)
	sent, err := client.Send(ctx, onebotgateway.Message{
		GroupID: &group,
		Text:    "hello from Go",
		Images:  []onebotgateway.Media{onebotgateway.Path(image)},
	})
	if err != nil {
		return nil, err
	}
	fmt.Println("message ids", sent.GetMessageIds(), "queued", sent.GetQueued())
	// How long the gateway's rate limits held the send back (a time.Duration).
	fmt.Println("waited", sent.GetRateLimitWait().AsDuration())
	// endregion
	return sent, nil
}

func exampleLimits(ctx context.Context, client *onebotgateway.Client, image string) (*onebotgateway.ClientError, error) {
	// region: limits
	group := int64(20000003)
	five := []onebotgateway.Media{}
	for range 5 {
		five = append(five, onebotgateway.Path(image))
	}
	_, err := client.Send(ctx, onebotgateway.Message{GroupID: &group, Text: "five pictures", Images: five})
	cerr, ok := onebotgateway.AsClientError(err)
	if !ok {
		return nil, err // nil, or a *GatewayError: every error is one of the two
	}
	// Refused here, before anything was uploaded, with the reason the gateway would give:
	// TOO_MANY_IMAGES Images 5 images; at most 4 (TOO_MANY_IMAGES)
	fmt.Println(cerr.Reason, cerr.Field, cerr)
	// endregion
	return cerr, nil
}

func exampleAgent(ctx context.Context, client *onebotgateway.Client, handled *uint64) (*gatewayv1.SendMessageResponse, error) {
	// region: agent
	// Answer each message that @s the bot, in its own chat (group or private), quoting it.
	// handled is the sequence number of the last event answered (nil: from now on).
	stream, err := client.StreamEvents(ctx, &gatewayv1.StreamEventsRequest{
		Kinds:         []gatewayv1.EventKind{gatewayv1.EventKind_EVENT_KIND_MESSAGE},
		AfterSequence: handled,
	})
	if err != nil {
		return nil, err
	}
	for {
		event, err := stream.Next()
		if err != nil {
			return nil, err
		}
		// includeAll true: @全体成员 too
		if event.GetMessage().GetSelfSent() || !onebotgateway.MentionsMe(event, false) {
			continue
		}
		fmt.Println(event.GetMessage().GetRendered()) // [HH:mm:ss] 名字(QQ号): @沙盒 在吗
		// Sent to the event's chat, with ReplyTo = the event's message.
		answer, err := client.Reply(ctx, event, onebotgateway.Message{Text: "在的"})
		if err != nil {
			return nil, err
		}
		seq := event.GetSequence()
		handled = &seq
		return answer, nil // an agent keeps following the stream
	}
	// endregion
}

func exampleConversation(ctx context.Context, client *onebotgateway.Client) (*gatewayv1.GetMessageResponse, error) {
	// region: conversation
	group := int64(20000003)
	page, err := client.History(ctx, onebotgateway.GroupChat(group), 20, nil)
	if err != nil {
		return nil, err
	}
	last := page.GetMessages()[len(page.GetMessages())-1]
	// Quote the newest message and mention its sender, in one message.
	replyTo := last.GetMessageId()
	sent, err := client.Send(ctx, onebotgateway.Message{
		GroupID:  &group,
		Text:     "收到",
		ReplyTo:  &replyTo,
		Mentions: []int64{last.GetSender().GetUserId()},
	})
	if err != nil {
		return nil, err
	}
	reply, err := client.GetMessage(ctx, sent.GetMessageIds()[0])
	if err != nil {
		return nil, err
	}
	fmt.Println(reply.GetRendered()) // [HH:mm:ss] 沙盒(…): [回复 名字: 文本]@名字收到
	// A private chat (the account's `users` whitelist), recalled within QQ's 2 minutes.
	friend := int64(10001)
	private, err := client.Send(ctx, onebotgateway.Message{UserID: &friend, Text: "私聊一句"})
	if err != nil {
		return nil, err
	}
	if err := client.Recall(ctx, private.GetMessageIds()[0]); err != nil {
		return nil, err
	}
	// Open the first merged-forward bundle of the page.
	forwardID := ""
	for _, m := range page.GetMessages() {
		for _, s := range m.GetSegments() {
			if f := s.GetForward(); f != nil && forwardID == "" {
				forwardID = f.GetId()
			}
		}
	}
	bundle, err := client.GetForward(ctx, forwardID)
	if err != nil {
		return nil, err
	}
	fmt.Println(bundle.GetRendered()) // one line per forwarded message
	// endregion
	return reply, nil
}

func examplePoke(ctx context.Context, client *onebotgateway.Client) (*gatewayv1.PokeMemberResponse, error) {
	// region: poke
	group := int64(20000003)
	poked, err := client.Poke(ctx, &group, 10001)
	if err != nil {
		return nil, err
	}
	fmt.Println("poked", poked.GetUserId(), "in", poked.GetGroupId())
	// endregion
	return poked, nil
}

func exampleTools(ctx context.Context, client *onebotgateway.Client) (*gatewayv1.CallToolResponse, error) {
	// region: tools
	tools, err := client.ListTools(ctx)
	if err != nil {
		return nil, err
	}
	for _, tool := range tools {
		fmt.Println(tool.GetName(), tool.GetInputSchemaJson())
	}
	result, err := client.CallTool(ctx, "qq_get_group_members", `{"groupId": 20000003, "limit": 2}`)
	if err != nil {
		return nil, err
	}
	// A failed tool call is a normal result: IsError, Text = details.error.
	fmt.Println(result.GetIsError(), result.GetText())
	// endregion
	return result, nil
}

func exampleEvents(ctx context.Context, client *onebotgateway.Client) (*gatewayv1.Event, error) {
	// region: events
	// Replays the buffered events after sequence 0, then follows new ones; cancel ctx to stop.
	after := uint64(0)
	stream, err := client.StreamEvents(ctx, &gatewayv1.StreamEventsRequest{
		Kinds:         []gatewayv1.EventKind{gatewayv1.EventKind_EVENT_KIND_POKE},
		AfterSequence: &after,
	})
	if err != nil {
		return nil, err
	}
	event, err := stream.Next() // io.EOF when the gateway shuts down
	if err != nil {
		return nil, err
	}
	if poke := event.GetPoke(); poke != nil {
		fmt.Println(event.GetSequence(), poke.GetUserId(), "poked", poke.GetTargetId())
	}
	// endregion
	return event, nil
}

func exampleSearch(ctx context.Context, client *onebotgateway.Client) ([]*gatewayv1.SearchMessagesResponse, error) {
	var pages []*gatewayv1.SearchMessagesResponse
	// region: search
	// The archive's messages containing 开会 in the last 7 days, newest page first (each page
	// oldest first); Next fetches one page at a time and returns io.EOF after the last.
	search := client.Search(ctx, &gatewayv1.SearchMessagesRequest{
		Query: "开会",
		Chat:  onebotgateway.GroupChat(20000003),
		Since: timestamppb.New(time.Now().Add(-7 * 24 * time.Hour)),
	})
	for {
		page, err := search.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		fmt.Println(page.GetRendered()) // [HH:mm:ss] 名字(QQ号): 文本
		pages = append(pages, page)
	}
	// endregion
	return pages, nil
}

// exampleGovernance is shown in the README; it needs a gateway with [policy] rules and an
// approver token, so no e2e test runs it (governance_test.go covers the helpers offline).
func exampleGovernance(ctx context.Context, client, approver *onebotgateway.Client, event *gatewayv1.Event) (*gatewayv1.Approval, error) {
	// region: governance
	// Answer a received message on behalf of its sender: to its chat, quoting it; the
	// gateway's [policy] rules decide by the sender's role there.
	reply := onebotgateway.ReplyFor(event.GetMessage().GetMessage())
	reply.Text = "好的"
	_, err := client.Send(ctx, reply)
	gerr, ok := onebotgateway.AsGatewayError(err)
	if !ok || !gerr.IsApprovalPending() {
		return nil, err // sent (nil), or another failure (IsPolicyDenied: refused for this role)
	}
	// Held for a bot owner's approval (they were asked in QQ): do not retry, wait for it.
	approval, err := client.WaitApproval(ctx, gerr.ApprovalID(), 5*time.Minute)
	if err != nil {
		return nil, err
	}
	if onebotgateway.IsApprovalOpen(approval) {
		// Still pending after the wait: decide with a token that has approve = true
		// (approver.Reject(ctx, id) rejects instead).
		approval, err = approver.Approve(ctx, approval.GetApprovalId())
		if err != nil {
			return nil, err
		}
	}
	fmt.Println(approval.GetState(), approval.GetMessageIds()) // APPROVAL_STATE_EXECUTED [...]
	// The audit trail of held sends, newest first, one page at a time.
	audit := client.AuditRecords(ctx, &gatewayv1.ListAuditRecordsRequest{
		Action:   "send",
		Decision: gatewayv1.AuditDecision_AUDIT_DECISION_PENDING,
	})
	for {
		page, err := audit.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		for _, r := range page.GetRecords() {
			fmt.Println(r.GetTime().AsTime(), r.GetRequesterUserId(), r.GetSummary(), r.GetApprovalId())
		}
	}
	// endregion
	return approval, nil
}

type groupFileDownload struct {
	file *gatewayv1.GroupFile
	data []byte
}

func exampleGroupFiles(ctx context.Context, client *onebotgateway.Client, dir string) ([]groupFileDownload, error) {
	var downloaded []groupFileDownload
	// region: groupFiles
	// The root folder of group 20000003's files (群文件), every page: its folders, then its files.
	group := int64(20000003)
	folders, files, err := client.ListGroupFiles(ctx, &gatewayv1.ListGroupFilesRequest{GroupId: &group}).All()
	if err != nil {
		return nil, err
	}
	for _, folder := range folders {
		fmt.Printf("%s/ (%d files)\n", folder.GetName(), folder.GetFileCount())
	}
	for _, file := range files {
		// Into memory, or streamed into a file; both check the header's size and SHA-256.
		got, err := client.DownloadGroupFile(ctx, &group, file.GetFileId())
		if err != nil {
			return nil, err
		}
		fmt.Println(file.GetName(), len(got.Data), "bytes", got.Header.GetMimeType())
		header, err := client.DownloadGroupFileTo(ctx, &group, file.GetFileId(), filepath.Join(dir, "group-file"), onebotgateway.DownloadOptions{})
		if err != nil {
			return nil, err
		}
		fmt.Println("saved", header.GetFileName(), header.GetSize())
		downloaded = append(downloaded, groupFileDownload{file, got.Data})
	}
	// endregion
	return downloaded, nil
}

func exampleReact(ctx context.Context, client *onebotgateway.Client) ([]*gatewayv1.EssenceMessage, error) {
	// region: react
	// React to a group message with 赞 (QQ face 76; a Unicode emoji is its code point, "128077").
	group := int64(20000003)
	sent, err := client.Send(ctx, onebotgateway.Message{GroupID: &group, Text: "react to me"})
	if err != nil {
		return nil, err
	}
	reacted, err := client.React(ctx, sent.GetMessageIds()[0], "76")
	if err != nil {
		return nil, err
	}
	fmt.Println("reacted in", reacted.GetGroupId())
	// The group's essence messages (精华), newest marking first, every page.
	essence, err := client.ListEssence(ctx, &gatewayv1.ListEssenceRequest{GroupId: &group}).All()
	if err != nil {
		return nil, err
	}
	for _, e := range essence {
		fmt.Println(e.GetMessage().GetSender().GetUserId(), e.GetMessage().GetText(), "marked by", e.GetOperatorName())
	}
	// endregion
	return essence, nil
}

func exampleTyping(ctx context.Context, client *onebotgateway.Client) error {
	// region: typing
	// "正在输入" in the private chat with 10001 (a user of the `users` whitelist) while the
	// model thinks. A courtesy: never let it stop the answer (some implementations have no
	// such action: IsNotSupportedByImplementation, and nothing is sent).
	if err := client.SetTyping(ctx, 10001); err != nil {
		gerr, ok := onebotgateway.AsGatewayError(err)
		if !ok {
			return err
		}
		fmt.Println("no typing indicator:", gerr.Reason)
	}
	// endregion
	return nil
}

func exampleModeration(ctx context.Context, client *onebotgateway.Client) (*onebotgateway.GatewayError, error) {
	var refused *onebotgateway.GatewayError
	// region: moderation
	// Mute, mute-all, kick and set-card are refused unless a [[policy.rules]] entry names the
	// action (mute, mute_all, kick, set_card); the sandbox has none, so this is POLICY_DENIED.
	group := int64(20000003)
	muted, err := client.MuteMember(ctx, &group, 10003, 10*time.Minute)
	if gerr, ok := onebotgateway.AsGatewayError(err); ok && gerr.IsPolicyDenied() {
		// Also: IsBotNotAdmin (the bot is not an admin), IsProtectedMember (the owner, the bot).
		fmt.Println("no policy rule allows it, rule =", gerr.Metadata["rule"])
		refused = gerr
	} else if err != nil {
		return nil, err
	} else {
		fmt.Println("muted", muted.GetUserId(), "in", muted.GetGroupId())
	}
	// endregion
	return refused, nil
}
