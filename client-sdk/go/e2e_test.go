package onebotgateway_test

// End-to-end: the Go SDK against a real gateway on its sandbox peer (scripts/sdk-tests.sh
// sets ONEBOT_GATEWAY_ADDR).

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	onebotgateway "github.com/onebot-gateway/onebot-gateway/client-sdk/go"
	gatewayv1 "github.com/onebot-gateway/onebot-gateway/client-sdk/go/onebot/gateway/v1"
)

func connect(t *testing.T) (*onebotgateway.Client, context.Context) {
	t.Helper()
	if os.Getenv("ONEBOT_GATEWAY_ADDR") == "" {
		t.Fatal("ONEBOT_GATEWAY_ADDR is not set: run ./scripts/sdk-tests.sh go")
	}
	client, err := exampleConnect()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return client, ctx
}

func TestHealth(t *testing.T) {
	client, ctx := connect(t)
	status, err := exampleHealth(ctx, client)
	if err != nil || status != "SERVING" {
		t.Fatalf("health: %q %v", status, err)
	}
	_, err = client.CheckHealth(ctx, "no.such.Service")
	gerr, ok := onebotgateway.AsGatewayError(err)
	if !ok || gerr.Code != codes.NotFound {
		t.Fatalf("unknown service: %v", err)
	}
}

const playground = int64(20000003)

func TestAccounts(t *testing.T) {
	client, ctx := connect(t)
	ids, err := exampleAccounts(ctx, client)
	if err != nil || !slices.Contains(ids, "default") {
		t.Fatalf("accounts %v %v", ids, err)
	}
	accounts, _ := client.ListAccounts(ctx)
	for _, a := range accounts {
		if a.GetAccountId() == "default" && !slices.Contains(a.GetGroups(), playground) {
			t.Fatalf("default account groups %v", a.GetGroups())
		}
	}
	if s, err := client.CheckHealth(ctx, onebotgateway.AccountHealthServicePrefix+"default"); err != nil || s != "SERVING" {
		t.Fatalf("account health %q %v", s, err)
	}
}

func TestHistoryPagesThePlaygroundGroup(t *testing.T) {
	client, ctx := connect(t)
	page, err := exampleHistory(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	if page.GetTarget() != "group:20000003" || len(page.GetMessages()) != 5 || len(strings.Split(page.GetRendered(), "\n")) != 5 {
		t.Fatalf("page %v", page)
	}
	older, err := client.History(ctx, onebotgateway.GroupChat(playground), 5, page.NextAnchorMessageId)
	if err != nil || len(older.GetMessages()) == 0 {
		t.Fatalf("older %v %v", older, err)
	}
	for _, m := range older.GetMessages() {
		for _, n := range page.GetMessages() {
			if m.GetMessageId() == n.GetMessageId() {
				t.Fatalf("message %d on both pages", m.GetMessageId())
			}
		}
	}
}

func TestMembersAndGroups(t *testing.T) {
	client, ctx := connect(t)
	members, err := exampleMembers(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	if members.GetTotal() != 36 || members.GetShown() != 5 || members.GetMembers()[0].GetUserId() != 10001 ||
		members.GetMembers()[0].GetRole() != "owner" || !strings.HasSuffix(members.GetRendered(), "（仅显示前 5 / 共 36 名成员）") {
		t.Fatalf("members %v", members)
	}
	groups, err := exampleGroups(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(groups.GetGroups(), func(g *gatewayv1.Group) bool { return g.GetGroupId() == playground && g.GetWhitelisted() }) {
		t.Fatalf("groups %v", groups)
	}
}

func TestUpload5MiBImage(t *testing.T) {
	client, ctx := connect(t)
	path := os.Getenv("ONEBOT_GATEWAY_TEST_IMAGE")
	info, err := os.Stat(path)
	if err != nil || info.Size() < 5*1024*1024 {
		t.Fatalf("ONEBOT_GATEWAY_TEST_IMAGE: %v", err)
	}
	uploaded, err := exampleUpload(ctx, client, path)
	if err != nil {
		t.Fatal(err)
	}
	if uploaded.MediaID == "" || uploaded.Size != info.Size() || uploaded.MimeType != "image/png" {
		t.Fatalf("uploaded %+v", uploaded)
	}
}

func TestDownloadReceivedAndUploadedMedia(t *testing.T) {
	client, ctx := connect(t)
	dir := t.TempDir()
	picture, err := exampleDownload(ctx, client, dir)
	if err != nil || picture == nil {
		t.Fatalf("download: %v %v", picture, err)
	}
	sum := sha256.Sum256(picture.Data)
	if hex.EncodeToString(sum[:]) != picture.Header.GetSha256() || picture.Header.GetMimeType() != "image/png" {
		t.Fatalf("header %v", picture.Header)
	}
	saved, err := os.ReadFile(filepath.Join(dir, "picture"))
	if err != nil || !bytes.Equal(saved, picture.Data) {
		t.Fatalf("saved file: %v", err)
	}
	data := []byte("%PDF-1.4 round trip")
	uploaded, err := client.UploadBytes(ctx, data, gatewayv1.MediaKind_MEDIA_KIND_FILE, onebotgateway.UploadOptions{FileName: "r.pdf"})
	if err != nil {
		t.Fatal(err)
	}
	again, err := client.Download(ctx, onebotgateway.ByMediaID(uploaded.MediaID))
	if err != nil || !bytes.Equal(again.Data, data) {
		t.Fatalf("round trip: %v", err)
	}
	_, err = client.DownloadTo(ctx, onebotgateway.ByMediaID("r_0123456789abcdef_1_0"), filepath.Join(dir, "missing"), onebotgateway.DownloadOptions{})
	var gwErr *onebotgateway.GatewayError
	if !errors.As(err, &gwErr) || gwErr.Code != codes.NotFound || gwErr.Reason != "MEDIA_NOT_FOUND" {
		t.Fatalf("missing: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.part")); !os.IsNotExist(err) {
		t.Fatalf("a partial file was left: %v", err)
	}
}

func TestErrorsCarryReasonMetadataAndField(t *testing.T) {
	client, ctx := connect(t)
	gerr, err := exampleErrors(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	if gerr.Code != codes.InvalidArgument || gerr.Reason != "INVALID_REQUEST" || gerr.Domain != onebotgateway.ErrorDomain ||
		gerr.ErrorReason() != gatewayv1.ErrorReason_ERROR_REASON_INVALID_REQUEST || gerr.FieldViolations[0].Field != "group_id" {
		t.Fatalf("error %+v", gerr)
	}
	other, err := onebotgateway.New(onebotgateway.Options{Address: os.Getenv("ONEBOT_GATEWAY_ADDR"), AccountID: "nope"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_, err = other.History(ctx, onebotgateway.GroupChat(playground), 5, nil)
	gerr, ok := onebotgateway.AsGatewayError(err)
	if !ok || gerr.Code != codes.FailedPrecondition || gerr.Reason != "ACCOUNT_NOT_CONFIGURED" || gerr.Metadata["account_id"] != "nope" {
		t.Fatalf("unknown account: %v", err)
	}
	_, err = client.UploadBytes(ctx, make([]byte, 1024), gatewayv1.MediaKind_MEDIA_KIND_IMAGE, onebotgateway.UploadOptions{FileName: "x.png"})
	if gerr, ok := onebotgateway.AsGatewayError(err); !ok || gerr.Reason != "MEDIA_TYPE_MISMATCH" {
		t.Fatalf("type mismatch: %v", err)
	}
}

func TestUnreachableGatewayIsAGatewayError(t *testing.T) {
	down, err := onebotgateway.New(onebotgateway.Options{Address: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = down.ListAccounts(ctx)
	gerr, ok := onebotgateway.AsGatewayError(err)
	if !ok || gerr.Code != codes.Unavailable {
		t.Fatalf("want Unavailable, got %v", err)
	}
}

func TestSendA5MiBImageAndReadItBack(t *testing.T) {
	client, ctx := connect(t)
	sent, err := exampleSend(ctx, client, os.Getenv("ONEBOT_GATEWAY_TEST_IMAGE"))
	if err != nil {
		t.Fatal(err)
	}
	if sent.GetGroupId() != playground || sent.GetQueued() || sent.GetMedia().GetImages() != 1 || len(sent.GetMessageIds()) != 2 {
		t.Fatalf("sent %v", sent)
	}
	page, err := client.History(ctx, onebotgateway.GroupChat(playground), 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := map[int64]*gatewayv1.ChatMessage{}
	for _, m := range page.GetMessages() {
		found[m.GetMessageId()] = m
	}
	if found[sent.GetMessageIds()[0]].GetText() != "hello from Go" {
		t.Fatalf("text not read back: %v", page)
	}
	image := found[sent.GetMessageIds()[1]]
	if image == nil || !slices.ContainsFunc(image.GetSegments(), func(s *gatewayv1.Segment) bool { return s.GetImage() != nil }) {
		t.Fatalf("image not read back: %v", page)
	}
}

func TestConversationReplyMentionPrivateRecallForward(t *testing.T) {
	client, ctx := connect(t)
	reply, err := exampleConversation(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, s := range reply.GetMessage().GetSegments() {
		switch {
		case s.GetReply() != nil:
			kinds = append(kinds, "reply")
		case s.GetAt() != nil:
			kinds = append(kinds, "at")
		case s.GetText() != nil:
			kinds = append(kinds, "text")
		}
	}
	if !slices.Equal(kinds, []string{"reply", "at", "text"}) {
		t.Fatalf("segments %v", kinds)
	}
	if q := reply.GetMessage().GetSegments()[0].GetReply().GetQuoted(); q.GetMessageId() == 0 {
		t.Fatalf("quote not resolved: %v", reply)
	}
	if !strings.Contains(reply.GetRendered(), "[回复 ") || strings.Contains(reply.GetMessage().GetText(), "回复") {
		t.Fatalf("rendered %q text %q", reply.GetRendered(), reply.GetMessage().GetText())
	}
	private, err := client.History(ctx, onebotgateway.PrivateChat(10001), 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range private.GetMessages() {
		if m.GetText() == "私聊一句" {
			t.Fatalf("the recalled message is still there")
		}
	}
	err = client.Recall(ctx, private.GetMessages()[0].GetMessageId())
	if gerr, ok := onebotgateway.AsGatewayError(err); !ok || gerr.Code != codes.FailedPrecondition || gerr.Reason != "ONEBOT_ACTION_FAILED" {
		t.Fatalf("recall outside the window: %v", err)
	}
	_, err = client.GetForward(ctx, "no-such-bundle")
	if gerr, ok := onebotgateway.AsGatewayError(err); !ok || gerr.Reason != "MESSAGE_NOT_FOUND" {
		t.Fatalf("unknown bundle: %v", err)
	}
	other := int64(10002)
	_, err = client.Send(ctx, onebotgateway.Message{UserID: &other, Text: "x"})
	if gerr, ok := onebotgateway.AsGatewayError(err); !ok || gerr.Reason != "USER_NOT_ALLOWED" {
		t.Fatalf("private send outside the whitelist: %v", err)
	}
}

func TestPoke(t *testing.T) {
	client, ctx := connect(t)
	poked, err := examplePoke(ctx, client)
	if err != nil || poked.GetGroupId() != playground || poked.GetUserId() != 10001 {
		t.Fatalf("poke %v %v", poked, err)
	}
}

func TestToolCall(t *testing.T) {
	client, ctx := connect(t)
	result, err := exampleTools(ctx, client)
	if err != nil || result.GetIsError() {
		t.Fatalf("tool %v %v", result, err)
	}
	var details struct {
		Status string `json:"status"`
		Total  int    `json:"total"`
		Shown  int    `json:"shown"`
	}
	if err := json.Unmarshal([]byte(result.GetDetailsJson()), &details); err != nil || details.Status != "ok" || details.Total != 36 || details.Shown != 2 {
		t.Fatalf("details %s %v", result.GetDetailsJson(), err)
	}
	if n := len(strings.Split(result.GetText(), "\n")); n != 3 {
		t.Fatalf("text has %d lines: %q", n, result.GetText())
	}
	failed, err := client.CallTool(ctx, "qq_get_group_members", "{}")
	if err != nil || !failed.GetIsError() {
		t.Fatalf("bad arguments %v %v", failed, err)
	}
}

func TestEventsReplayAndFollow(t *testing.T) {
	client, ctx := connect(t)
	group := playground
	if _, err := client.Poke(ctx, &group, 10002); err != nil {
		t.Fatal(err)
	}
	streamCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	event, err := exampleEvents(streamCtx, client)
	if err != nil || event.GetSequence() < 1 || event.GetPoke().GetGroupId() != playground {
		t.Fatalf("event %v %v", event, err)
	}
}

// The stream through nginx survives the proxy being killed and restarted: it reconnects from
// the last event it returned, and every event arrives once.
func TestEventsResumeAcrossAProxyRestart(t *testing.T) {
	client, ctx := connect(t)
	proxy, restart := os.Getenv("ONEBOT_GATEWAY_PROXY_ADDR"), os.Getenv("ONEBOT_GATEWAY_PROXY_RESTART")
	if proxy == "" || restart == "" {
		t.Fatal("ONEBOT_GATEWAY_PROXY_ADDR is not set: run ./scripts/sdk-tests.sh go")
	}
	viaProxy, err := onebotgateway.New(onebotgateway.Options{Address: proxy})
	if err != nil {
		t.Fatal(err)
	}
	defer viaProxy.Close()
	zero := uint64(0)
	stream, err := viaProxy.StreamEvents(ctx, &gatewayv1.StreamEventsRequest{
		Kinds:         []gatewayv1.EventKind{gatewayv1.EventKind_EVENT_KIND_POKE},
		AfterSequence: &zero,
	})
	if err != nil {
		t.Fatal(err)
	}
	group := playground
	if _, err := client.Poke(ctx, &group, 10011); err != nil {
		t.Fatal(err)
	}
	var first *gatewayv1.Event
	for first == nil {
		e, err := stream.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e.GetPoke().GetTargetId() == 10011 {
			first = e
		}
	}
	if out, err := exec.CommandContext(ctx, restart).CombinedOutput(); err != nil {
		t.Fatalf("restarting the proxy: %v %s", err, out)
	}
	if _, err := client.Poke(ctx, &group, 10012); err != nil {
		t.Fatal(err)
	}
	for last := first.GetSequence(); ; {
		e, err := stream.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e.GetSequence() <= last || e.GetPoke().GetTargetId() == 10011 {
			t.Fatalf("in order, once: %v after sequence %d", e, last)
		}
		last = e.GetSequence()
		if e.GetPoke().GetTargetId() == 10012 {
			break
		}
	}
	if stream.Reconnects() < 1 {
		t.Fatal("the stream did not reconnect")
	}
}

func TestSearchFindsWhatWasSent(t *testing.T) {
	client, ctx := connect(t)
	group := int64(playground)
	sent, err := client.Send(ctx, onebotgateway.Message{GroupID: &group, Text: "Go 明天下午开会"})
	if err != nil {
		t.Fatal(err)
	}
	pages, err := exampleSearch(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, page := range pages {
		for _, m := range page.GetMessages() {
			if !strings.Contains(m.GetText(), "开会") {
				t.Fatalf("not a match: %v", m)
			}
			found = found || m.GetMessageId() == sent.GetMessageIds()[0]
		}
	}
	if !found {
		t.Fatalf("the sent message is not in %v", pages)
	}
	_, err = client.Search(ctx, &gatewayv1.SearchMessagesRequest{Chat: onebotgateway.GroupChat(0)}).Next()
	if gerr, ok := onebotgateway.AsGatewayError(err); !ok || gerr.Reason != "INVALID_REQUEST" {
		t.Fatalf("want INVALID_REQUEST, got %v", err)
	}
}

func TestGroupFilesListAndDownload(t *testing.T) {
	client, ctx := connect(t)
	dir := t.TempDir()
	files, err := exampleGroupFiles(ctx, client, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("group %d has files", playground)
	}
	for _, f := range files {
		if uint64(len(f.data)) != f.file.GetSize() {
			t.Errorf("%s: %d bytes, listed %d", f.file.GetName(), len(f.data), f.file.GetSize())
		}
	}
	if info, err := os.Stat(filepath.Join(dir, "group-file")); err != nil || uint64(info.Size()) != files[len(files)-1].file.GetSize() {
		t.Fatalf("saved file: %v %v", info, err)
	}
}

func TestReactAndListEssence(t *testing.T) {
	client, ctx := connect(t)
	essence, err := exampleReact(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	if len(essence) == 0 {
		t.Fatalf("group %d has essence messages", playground)
	}
	group := int64(playground)
	first, err := client.ListEssence(ctx, &gatewayv1.ListEssenceRequest{GroupId: &group, PageSize: 1}).Next()
	if err != nil || first.GetGroupId() != playground || len(first.GetMessages()) > 1 {
		t.Fatalf("first page: %v %v", first, err)
	}
}

func TestTypingNeedsAWhitelistedUser(t *testing.T) {
	client, ctx := connect(t)
	err := client.SetTyping(ctx, 10002)
	if gerr, ok := onebotgateway.AsGatewayError(err); !ok || gerr.Code != codes.PermissionDenied || gerr.Reason != "USER_NOT_ALLOWED" {
		t.Fatalf("typing to 10002: %v", err)
	}
	if err := exampleTyping(ctx, client); err != nil {
		t.Fatal(err)
	}
}

func TestModerationWithoutAPolicyRuleIsDenied(t *testing.T) {
	client, ctx := connect(t)
	refused, err := exampleModeration(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	if refused == nil || refused.Code != codes.PermissionDenied || !refused.IsPolicyDenied() || refused.Metadata["rule"] != "none" {
		t.Fatalf("mute without a rule: %v", refused)
	}
	group := int64(playground)
	for name, call := range map[string]func() error{
		"mute all": func() error { _, err := client.MuteAll(ctx, &group, true); return err },
		"kick":     func() error { _, err := client.KickMember(ctx, &group, 10003, false); return err },
		"card":     func() error { _, err := client.SetMemberCard(ctx, &group, 10003, "新名片"); return err },
	} {
		if gerr, ok := onebotgateway.AsGatewayError(call()); !ok || gerr.Reason != "POLICY_DENIED" {
			t.Errorf("%s: %v", name, gerr)
		}
	}
}
