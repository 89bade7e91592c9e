package onebotgateway_test

// Offline tests of the agent helpers and the checks before a send, against an in-process fake
// gateway (a real gRPC server on a loopback port) that records what reaches it.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	onebotgateway "github.com/onebot-gateway/onebot-gateway/client-sdk/go"
	gatewayv1 "github.com/onebot-gateway/onebot-gateway/client-sdk/go/onebot/gateway/v1"
)

const bot = int64(3889000000)

type fakeGateway struct {
	gatewayv1.UnimplementedMediaServiceServer
	gatewayv1.UnimplementedMessageServiceServer
	mu      sync.Mutex
	uploads int
	sent    []*gatewayv1.SendMessageRequest
}

func (f *fakeGateway) UploadMedia(stream grpc.ClientStreamingServer[gatewayv1.UploadMediaRequest, gatewayv1.UploadMediaResponse]) error {
	sum := sha256.New()
	var size int64
	for {
		req, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		sum.Write(req.GetChunk())
		size += int64(len(req.GetChunk()))
	}
	f.mu.Lock()
	f.uploads++
	id := "m" + string(rune('0'+f.uploads))
	f.mu.Unlock()
	return stream.SendAndClose(&gatewayv1.UploadMediaResponse{MediaId: id, Size: size, Sha256: hex.EncodeToString(sum.Sum(nil))})
}

func (f *fakeGateway) SendMessage(_ context.Context, req *gatewayv1.SendMessageRequest) (*gatewayv1.SendMessageResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, req)
	if req.GetText() == "refuse" {
		return nil, status.Error(codes.PermissionDenied, "group 1 is not whitelisted")
	}
	return &gatewayv1.SendMessageResponse{MessageIds: []int64{int64(len(f.sent))}}, nil
}

func (f *fakeGateway) counts() (int, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.uploads, len(f.sent)
}

func startFake(t *testing.T) (*onebotgateway.Client, *fakeGateway, context.Context) {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := grpc.NewServer()
	fake := &fakeGateway{}
	gatewayv1.RegisterMediaServiceServer(server, fake)
	gatewayv1.RegisterMessageServiceServer(server, fake)
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(server.Stop)
	client, err := onebotgateway.New(onebotgateway.Options{Address: "http://" + listener.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return client, fake, ctx
}

func pngFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "a.png")
	if err := os.WriteFile(path, append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 64)...), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func ptr(v int64) *int64 { return &v }

func TestSendOverTheLimitsUploadsNothing(t *testing.T) {
	client, fake, ctx := startFake(t)
	png := onebotgateway.Path(pngFile(t))
	images := func(n int) []onebotgateway.Media { return slices.Repeat([]onebotgateway.Media{png}, n) }
	mentions := func(n int) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = 10001 + int64(i)
		}
		return out
	}
	group := ptr(20000003)
	cases := []struct {
		message       onebotgateway.Message
		reason, field string
	}{
		{onebotgateway.Message{GroupID: group, Images: images(5)}, "TOO_MANY_IMAGES", "Images"},
		{onebotgateway.Message{GroupID: group, Videos: images(2)}, "TOO_MANY_VIDEOS", "Videos"},
		{onebotgateway.Message{GroupID: group, Images: images(1), Text: strings.Repeat("x", onebotgateway.MaxTextChars+1)}, "TEXT_TOO_LONG", "Text"},
		{onebotgateway.Message{GroupID: group, Images: images(1), Mentions: mentions(21)}, "INVALID_REQUEST", "Mentions"},
		{onebotgateway.Message{GroupID: group, Images: images(1), Mentions: []int64{10001, 0}}, "INVALID_REQUEST", "Mentions[1]"},
		{onebotgateway.Message{GroupID: group, Images: images(1), ReplyTo: ptr(0)}, "INVALID_REQUEST", "ReplyTo"},
		{onebotgateway.Message{GroupID: group, Images: images(1), UserID: ptr(10001)}, "INVALID_REQUEST", "UserID"},
		{onebotgateway.Message{GroupID: group, Images: images(1), IdempotencyKey: strings.Repeat("k", 129)}, "INVALID_REQUEST", "IdempotencyKey"},
		{onebotgateway.Message{GroupID: group, Text: "   "}, "EMPTY_MESSAGE", ""},
		{onebotgateway.Message{GroupID: group, Images: []onebotgateway.Media{png, onebotgateway.Path(filepath.Join(t.TempDir(), "missing.png"))}}, "", "Images[1]"},
		{onebotgateway.Message{GroupID: group, Images: []onebotgateway.Media{png, {}}}, "", "Images[1]"},
	}
	for _, c := range cases {
		_, err := client.Send(ctx, c.message)
		cerr, ok := onebotgateway.AsClientError(err)
		if !ok || cerr.Reason != c.reason || cerr.Field != c.field {
			t.Errorf("want %s/%s, got %#v", c.reason, c.field, err)
		}
	}
	if _, err := client.Send(ctx, cases[9].message); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file wraps fs.ErrNotExist: %v", err)
	}
	if uploads, sends := fake.counts(); uploads != 0 || sends != 0 {
		t.Fatalf("%d uploads and %d sends reached the gateway", uploads, sends)
	}
	// At the limits, counted in characters: 20000 of 3 bytes each.
	_, err := client.Send(ctx, onebotgateway.Message{GroupID: group, Text: strings.Repeat("字", onebotgateway.MaxTextChars), Images: images(4), Mentions: mentions(20)})
	if err != nil {
		t.Fatal(err)
	}
	if uploads, sends := fake.counts(); uploads != 4 || sends != 1 {
		t.Fatalf("at the limits: %d uploads, %d sends", uploads, sends)
	}
}

func TestEveryFailureIsGatewayOrClientError(t *testing.T) {
	client, _, ctx := startFake(t)
	_, err := client.Send(ctx, onebotgateway.Message{GroupID: ptr(1), Text: "refuse"})
	if gerr, ok := onebotgateway.AsGatewayError(err); !ok || gerr.Code != codes.PermissionDenied {
		t.Fatalf("a refused call: %v", err)
	}
	_, err = onebotgateway.New(onebotgateway.Options{Address: "https://127.0.0.1:1", CAFile: "/nonexistent/ca.pem"})
	if cerr, ok := onebotgateway.AsClientError(err); !ok || cerr.Field != "CAFile" || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a missing CA file: %v", err)
	}
	_, err = client.DownloadTo(ctx, onebotgateway.ByMediaID("m1"), filepath.Join(t.TempDir(), "no-such-dir", "out"), onebotgateway.DownloadOptions{})
	if _, ok := onebotgateway.AsClientError(err); !ok {
		t.Fatalf("an unwritable download: %v", err)
	}
	_, err = client.UploadFile(ctx, "/nonexistent/a.png", gatewayv1.MediaKind_MEDIA_KIND_IMAGE, onebotgateway.UploadOptions{})
	if _, ok := onebotgateway.AsClientError(err); !ok {
		t.Fatalf("a missing upload: %v", err)
	}
}

func at(userID int64, all bool) *gatewayv1.Segment {
	return &gatewayv1.Segment{Kind: &gatewayv1.Segment_At{At: &gatewayv1.AtSegment{UserId: userID, All: all}}}
}

func text(s string) *gatewayv1.Segment {
	return &gatewayv1.Segment{Kind: &gatewayv1.Segment_Text{Text: &gatewayv1.TextSegment{Text: s}}}
}

func messageEvent(chat *gatewayv1.Chat, id int64, segments ...*gatewayv1.Segment) *gatewayv1.Event {
	return &gatewayv1.Event{Sequence: 5, SelfId: bot, Kind: &gatewayv1.Event_Message{Message: &gatewayv1.MessageEvent{
		Message: &gatewayv1.ChatMessage{MessageId: id, Chat: chat, Segments: segments, Sender: &gatewayv1.Sender{UserId: 10001}},
	}}}
}

func TestMentionsMe(t *testing.T) {
	group := onebotgateway.GroupChat(20000003)
	checks := []struct {
		event      *gatewayv1.Event
		includeAll bool
		want       bool
	}{
		{messageEvent(group, 1, at(bot, false), text(" 在吗")), false, true},
		{messageEvent(group, 1, at(10002, false), text(" 在吗")), false, false},
		{messageEvent(group, 1, text("@3889000000 is only text")), false, false},
		// @全体成员 addresses everyone: a mention of the bot only when asked for.
		{messageEvent(group, 1, at(0, true)), false, false},
		{messageEvent(group, 1, at(0, true)), true, true},
		{&gatewayv1.Event{SelfId: bot, Kind: &gatewayv1.Event_Poke{Poke: &gatewayv1.PokeEvent{TargetId: bot}}}, true, false},
	}
	for i, c := range checks {
		if got := onebotgateway.MentionsMe(c.event, c.includeAll); got != c.want {
			t.Errorf("check %d: got %v", i, got)
		}
	}
	if !onebotgateway.MessageMentions(&gatewayv1.ChatMessage{Segments: []*gatewayv1.Segment{at(bot, false)}}, bot, false) {
		t.Error("a message without its event")
	}
}

func TestReplyAnswersInTheChatOfTheMessage(t *testing.T) {
	client, fake, ctx := startFake(t)
	if _, err := client.Reply(ctx, messageEvent(onebotgateway.GroupChat(20000003), 77, at(bot, false)), onebotgateway.Message{Text: "收到"}); err != nil {
		t.Fatal(err)
	}
	private := messageEvent(onebotgateway.PrivateChat(10001), 88, text("hi"))
	if _, err := client.Reply(ctx, private, onebotgateway.Message{Text: "私聊", Mentions: []int64{10001}}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.ReplyToMessage(ctx, private.GetMessage().GetMessage(), false, onebotgateway.Message{Text: "no quote"}); err != nil {
		t.Fatal(err)
	}
	refusals := []error{}
	_, err := client.Reply(ctx, &gatewayv1.Event{Kind: &gatewayv1.Event_Poke{Poke: &gatewayv1.PokeEvent{}}}, onebotgateway.Message{Text: "x"})
	refusals = append(refusals, err)
	_, err = client.Reply(ctx, messageEvent(onebotgateway.GroupChat(20000003), 0, text("node")), onebotgateway.Message{Text: "x"})
	refusals = append(refusals, err)
	_, err = client.Reply(ctx, private, onebotgateway.Message{Text: "x", GroupID: ptr(1)})
	refusals = append(refusals, err)
	for i, err := range refusals {
		if _, ok := onebotgateway.AsClientError(err); !ok {
			t.Errorf("refusal %d: %v", i, err)
		}
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if len(fake.sent) != 3 {
		t.Fatalf("%d sends", len(fake.sent))
	}
	first, second, third := fake.sent[0], fake.sent[1], fake.sent[2]
	if first.GetGroupId() != 20000003 || first.UserId != nil || first.GetReplyToMessageId() != 77 || first.GetText() != "收到" {
		t.Errorf("group reply: %v", first)
	}
	if second.GroupId != nil || second.GetUserId() != 10001 || second.GetReplyToMessageId() != 88 || !slices.Equal(second.GetMentionUserIds(), []int64{10001}) {
		t.Errorf("private reply: %v", second)
	}
	if third.GetUserId() != 10001 || third.ReplyToMessageId != nil {
		t.Errorf("reply without a quote: %v", third)
	}
}

func TestRateLimitWaitIsADuration(t *testing.T) {
	response := &gatewayv1.SendMessageResponse{RateLimitWait: durationpb.New(1250 * time.Millisecond)}
	if got := response.GetRateLimitWait().AsDuration(); got != 1250*time.Millisecond {
		t.Fatal(got)
	}
	if got := (&gatewayv1.SendMessageResponse{}).GetRateLimitWait().AsDuration(); got != 0 {
		t.Fatal(got)
	}
}
