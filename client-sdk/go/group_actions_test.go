package onebotgateway_test

// Offline tests of the group actions (reactions, essence, typing, voice, group files,
// moderation) and their error predicates, against an in-process fake gateway that records the
// requests reaching it.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	onebotgateway "github.com/onebot-gateway/onebot-gateway/client-sdk/go"
	gatewayv1 "github.com/onebot-gateway/onebot-gateway/client-sdk/go/onebot/gateway/v1"
)

var groupFileBytes = bytes.Repeat([]byte{7}, 300*1024) // two chunks

type groupActionsFake struct {
	gatewayv1.UnimplementedMessageServiceServer
	gatewayv1.UnimplementedGroupServiceServer
	gatewayv1.UnimplementedMediaServiceServer
	mu          sync.Mutex
	requests    []proto.Message
	uploadKinds []gatewayv1.MediaKind
}

func (f *groupActionsFake) record(req proto.Message) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, proto.Clone(req))
}

func (f *groupActionsFake) seen() []proto.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]proto.Message(nil), f.requests...)
}

func refusal(code codes.Code, reason string, metadata map[string]string) error {
	s, _ := status.New(code, strings.ToLower(reason)).WithDetails(&errdetails.ErrorInfo{
		Reason: reason, Domain: onebotgateway.ErrorDomain, Metadata: metadata,
	})
	return s.Err()
}

func (f *groupActionsFake) ReactToMessage(_ context.Context, req *gatewayv1.ReactToMessageRequest) (*gatewayv1.ReactToMessageResponse, error) {
	f.record(req)
	return &gatewayv1.ReactToMessageResponse{GroupId: 20000003}, nil
}

func (f *groupActionsFake) SetEssence(_ context.Context, req *gatewayv1.SetEssenceRequest) (*gatewayv1.SetEssenceResponse, error) {
	f.record(req)
	return &gatewayv1.SetEssenceResponse{GroupId: 20000003}, nil
}

func (f *groupActionsFake) ListEssence(_ context.Context, req *gatewayv1.ListEssenceRequest) (*gatewayv1.ListEssenceResponse, error) {
	f.record(req)
	if req.GetPageToken() == "" {
		return &gatewayv1.ListEssenceResponse{GroupId: 20000003, Messages: []*gatewayv1.EssenceMessage{{OperatorId: 10001}, {OperatorId: 10001}}, NextPageToken: "e2"}, nil
	}
	return &gatewayv1.ListEssenceResponse{GroupId: 20000003, Messages: []*gatewayv1.EssenceMessage{{OperatorId: 10002}}}, nil
}

func (f *groupActionsFake) SetTyping(_ context.Context, req *gatewayv1.SetTypingRequest) (*gatewayv1.SetTypingResponse, error) {
	f.record(req)
	switch req.GetUserId() {
	case 10002:
		return nil, refusal(codes.PermissionDenied, "USER_NOT_ALLOWED", nil)
	case 10003:
		return nil, refusal(codes.Unimplemented, "NOT_SUPPORTED_BY_IMPLEMENTATION", map[string]string{"implementation": "llonebot", "action": "typing"})
	}
	return &gatewayv1.SetTypingResponse{}, nil
}

func (f *groupActionsFake) SendMessage(_ context.Context, req *gatewayv1.SendMessageRequest) (*gatewayv1.SendMessageResponse, error) {
	f.record(req)
	return &gatewayv1.SendMessageResponse{MessageIds: []int64{1, 2}, Media: &gatewayv1.MediaSummary{Voices: int32(len(req.GetVoices()))}}, nil
}

func (f *groupActionsFake) UploadMedia(stream grpc.ClientStreamingServer[gatewayv1.UploadMediaRequest, gatewayv1.UploadMediaResponse]) error {
	sum := sha256.New()
	var size int64
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if h := msg.GetHeader(); h != nil {
			f.mu.Lock()
			f.uploadKinds = append(f.uploadKinds, h.GetKind())
			f.mu.Unlock()
		}
		sum.Write(msg.GetChunk())
		size += int64(len(msg.GetChunk()))
	}
	return stream.SendAndClose(&gatewayv1.UploadMediaResponse{MediaId: "v1", Size: size, Sha256: hex.EncodeToString(sum.Sum(nil)), MimeType: "audio/amr"})
}

func (f *groupActionsFake) ListGroupFiles(_ context.Context, req *gatewayv1.ListGroupFilesRequest) (*gatewayv1.ListGroupFilesResponse, error) {
	f.record(req)
	if req.GetPageToken() == "" {
		return &gatewayv1.ListGroupFilesResponse{
			GroupId:       20000003,
			Folders:       []*gatewayv1.GroupFolder{{FolderId: "/d1", Name: "资料"}},
			Files:         []*gatewayv1.GroupFile{{FileId: "f1", Name: "a.txt", Size: uint64(len(groupFileBytes))}},
			NextPageToken: "g2",
		}, nil
	}
	return &gatewayv1.ListGroupFilesResponse{GroupId: 20000003, Files: []*gatewayv1.GroupFile{{FileId: "f2", Name: "b.txt", Size: 1}}}, nil
}

func (f *groupActionsFake) DownloadGroupFile(req *gatewayv1.DownloadGroupFileRequest, stream grpc.ServerStreamingServer[gatewayv1.DownloadGroupFileResponse]) error {
	f.record(req)
	data := groupFileBytes
	if req.GetFileId() == "bad" {
		data = []byte("x")
	}
	digest := sha256.Sum256(groupFileBytes)
	header := &gatewayv1.DownloadMediaHeader{
		Kind: gatewayv1.MediaKind_MEDIA_KIND_FILE, MimeType: "text/plain", Size: int64(len(groupFileBytes)),
		Sha256: hex.EncodeToString(digest[:]), FileName: "a.txt",
	}
	if err := stream.Send(&gatewayv1.DownloadGroupFileResponse{Payload: &gatewayv1.DownloadGroupFileResponse_Header{Header: header}}); err != nil {
		return err
	}
	for i := 0; i < len(data); i += 256 * 1024 {
		chunk := data[i:min(i+256*1024, len(data))]
		if err := stream.Send(&gatewayv1.DownloadGroupFileResponse{Payload: &gatewayv1.DownloadGroupFileResponse_Chunk{Chunk: chunk}}); err != nil {
			return err
		}
	}
	return nil
}

func (f *groupActionsFake) MuteMember(_ context.Context, req *gatewayv1.MuteMemberRequest) (*gatewayv1.MuteMemberResponse, error) {
	f.record(req)
	if req.GetUserId() == 10001 {
		return nil, refusal(codes.PermissionDenied, "PROTECTED_MEMBER", map[string]string{"user_id": "10001", "why": "owner"})
	}
	return nil, refusal(codes.PermissionDenied, "POLICY_DENIED", map[string]string{"rule": "none", "action": "mute"})
}

func (f *groupActionsFake) MuteAll(_ context.Context, req *gatewayv1.MuteAllRequest) (*gatewayv1.MuteAllResponse, error) {
	f.record(req)
	return nil, refusal(codes.FailedPrecondition, "BOT_NOT_ADMIN", map[string]string{"group_id": "20000002", "bot_role": "member", "needed_role": "admin"})
}

func (f *groupActionsFake) KickMember(_ context.Context, req *gatewayv1.KickMemberRequest) (*gatewayv1.KickMemberResponse, error) {
	f.record(req)
	return &gatewayv1.KickMemberResponse{GroupId: 20000003, UserId: req.GetUserId()}, nil
}

func (f *groupActionsFake) SetMemberCard(_ context.Context, req *gatewayv1.SetMemberCardRequest) (*gatewayv1.SetMemberCardResponse, error) {
	f.record(req)
	return &gatewayv1.SetMemberCardResponse{GroupId: 20000003, UserId: req.GetUserId()}, nil
}

func startGroupActionsFake(t *testing.T) (*onebotgateway.Client, *groupActionsFake, context.Context) {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := grpc.NewServer()
	fake := &groupActionsFake{}
	gatewayv1.RegisterMessageServiceServer(server, fake)
	gatewayv1.RegisterGroupServiceServer(server, fake)
	gatewayv1.RegisterMediaServiceServer(server, fake)
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(server.Stop)
	client, err := onebotgateway.New(onebotgateway.Options{Address: "http://" + listener.Addr().String(), AccountID: "bot1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return client, fake, ctx
}

func TestReactEssenceAndTypingReachTheGateway(t *testing.T) {
	client, fake, ctx := startGroupActionsFake(t)
	if r, err := client.React(ctx, 77, "76"); err != nil || r.GetGroupId() != 20000003 {
		t.Fatalf("react: %v %v", r, err)
	}
	calls := []error{
		func() error {
			_, err := client.ReactFor(ctx, 77, "128077", true, onebotgateway.OnBehalfOfMessage(77))
			return err
		}(),
		func() error {
			_, err := client.SetEssenceFor(ctx, 77, false, onebotgateway.OnBehalfOfUser(10001))
			return err
		}(),
		func() error { _, err := client.RemoveEssence(ctx, 77); return err }(),
		client.SetTyping(ctx, 10001),
	}
	for i, err := range calls {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	seen := fake.seen()
	react := seen[0].(*gatewayv1.ReactToMessageRequest)
	if react.GetAccountId() != "bot1" || react.GetMessageId() != 77 || react.GetEmojiId() != "76" || react.GetRemove() || react.GetOnBehalfOf() != nil {
		t.Fatalf("react: %v", react)
	}
	unreact := seen[1].(*gatewayv1.ReactToMessageRequest)
	if unreact.GetEmojiId() != "128077" || !unreact.GetRemove() || unreact.GetOnBehalfOf().GetMessageId() != 77 {
		t.Fatalf("unreact: %v", unreact)
	}
	essence, unessence := seen[2].(*gatewayv1.SetEssenceRequest), seen[3].(*gatewayv1.SetEssenceRequest)
	if essence.GetRemove() || essence.GetOnBehalfOf().GetUserId() != 10001 || !unessence.GetRemove() {
		t.Fatalf("essence: %v %v", essence, unessence)
	}
	if typing := seen[4].(*gatewayv1.SetTypingRequest); typing.GetUserId() != 10001 || typing.GetAccountId() != "bot1" {
		t.Fatalf("typing: %v", typing)
	}
}

func TestGroupActionArgumentsAreCheckedBeforeAnyCall(t *testing.T) {
	client, fake, ctx := startGroupActionsFake(t)
	cases := []struct {
		field string
		err   error
	}{
		{"MessageID", func() error { _, err := client.React(ctx, 0, "76"); return err }()},
		{"EmojiID", func() error { _, err := client.React(ctx, 1, ""); return err }()},
		{"EmojiID", func() error { _, err := client.React(ctx, 1, strings.Repeat("x", 33)); return err }()},
		{"MessageID", func() error { _, err := client.SetEssence(ctx, 0); return err }()},
		{"UserID", client.SetTyping(ctx, 0)},
		{"Duration", func() error {
			_, err := client.MuteMember(ctx, nil, 10003, onebotgateway.MaxMute+time.Second)
			return err
		}()},
		{"Duration", func() error { _, err := client.MuteMember(ctx, nil, 10003, -time.Second); return err }()},
		{"UserID", func() error { _, err := client.KickMember(ctx, nil, 0, false); return err }()},
		{"Card", func() error { _, err := client.SetMemberCard(ctx, nil, 10003, strings.Repeat("名", 21)); return err }()},
		{"FileID", func() error { _, err := client.DownloadGroupFile(ctx, nil, ""); return err }()},
	}
	for _, c := range cases {
		cerr, ok := onebotgateway.AsClientError(c.err)
		if !ok || cerr.Reason != "INVALID_REQUEST" || cerr.Field != c.field {
			t.Errorf("%s: %v", c.field, c.err)
		}
	}
	if seen := fake.seen(); len(seen) != 0 {
		t.Fatalf("calls reached the gateway: %v", seen)
	}
}

func TestListEssenceAndGroupFilesFollowThePages(t *testing.T) {
	client, fake, ctx := startGroupActionsFake(t)
	group := int64(20000003)
	essence, err := client.ListEssence(ctx, &gatewayv1.ListEssenceRequest{GroupId: &group, PageSize: 2}).All()
	if err != nil || len(essence) != 3 || essence[2].GetOperatorId() != 10002 {
		t.Fatalf("essence: %v %v", essence, err)
	}
	pages := client.ListGroupFiles(ctx, &gatewayv1.ListGroupFilesRequest{GroupId: &group, FolderId: "/d1", PageSize: 100})
	first, err := pages.Next()
	if err != nil || len(first.GetFolders()) != 1 || first.GetFiles()[0].GetFileId() != "f1" {
		t.Fatalf("first page: %v %v", first, err)
	}
	folders, files, err := pages.All()
	if err != nil || len(folders) != 0 || len(files) != 1 || files[0].GetFileId() != "f2" {
		t.Fatalf("rest: %v %v %v", folders, files, err)
	}
	if _, err := pages.Next(); err != io.EOF {
		t.Fatalf("after the last page: %v", err)
	}
	seen := fake.seen()
	e1, e2 := seen[0].(*gatewayv1.ListEssenceRequest), seen[1].(*gatewayv1.ListEssenceRequest)
	if e1.GetAccountId() != "bot1" || e1.GetPageToken() != "" || e2.GetPageToken() != "e2" || e2.GetPageSize() != 2 || e2.GetGroupId() != group {
		t.Fatalf("essence requests: %v %v", e1, e2)
	}
	f1, f2 := seen[2].(*gatewayv1.ListGroupFilesRequest), seen[3].(*gatewayv1.ListGroupFilesRequest)
	if f1.GetFolderId() != "/d1" || f1.GetPageSize() != 100 || f1.GetPageToken() != "" || f2.GetPageToken() != "g2" {
		t.Fatalf("file requests: %v %v", f1, f2)
	}
}

func TestGroupFilesDownloadIntoMemoryAndAFile(t *testing.T) {
	client, fake, ctx := startGroupActionsFake(t)
	group := int64(20000003)
	got, err := client.DownloadGroupFile(ctx, &group, "f1")
	if err != nil || !bytes.Equal(got.Data, groupFileBytes) || got.Header.GetFileName() != "a.txt" {
		t.Fatalf("download: %v", err)
	}
	dir := t.TempDir()
	var progress [][2]int64
	header, err := client.DownloadGroupFileTo(ctx, nil, "f1", filepath.Join(dir, "a.txt"), onebotgateway.DownloadOptions{
		Progress: func(received, total int64) { progress = append(progress, [2]int64{received, total}) },
	})
	if err != nil || header.GetSize() != int64(len(groupFileBytes)) {
		t.Fatalf("download to: %v %v", header, err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); !bytes.Equal(data, groupFileBytes) {
		t.Fatal("the saved file differs")
	}
	if len(progress) != 2 || progress[1] != [2]int64{int64(len(groupFileBytes)), int64(len(groupFileBytes))} {
		t.Fatalf("progress: %v", progress)
	}
	_, err = client.DownloadGroupFileTo(ctx, nil, "bad", filepath.Join(dir, "bad.txt"), onebotgateway.DownloadOptions{})
	if cerr, ok := onebotgateway.AsClientError(err); !ok || !strings.Contains(cerr.Message, "integrity") {
		t.Fatalf("bad download: %v", err)
	}
	for _, name := range []string{"bad.txt", "bad.txt.part"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s left behind: %v", name, err)
		}
	}
	seen := fake.seen()
	if first, second := seen[0].(*gatewayv1.DownloadGroupFileRequest), seen[1].(*gatewayv1.DownloadGroupFileRequest); first.GetGroupId() != group || second.GroupId != nil {
		t.Fatalf("download requests: %v %v", first, second)
	}
}

func TestModerationAndTheErrorPredicates(t *testing.T) {
	client, fake, ctx := startGroupActionsFake(t)
	group, other := int64(20000003), int64(20000002)
	gerr := func(err error) *onebotgateway.GatewayError {
		t.Helper()
		g, ok := onebotgateway.AsGatewayError(err)
		if !ok {
			t.Fatalf("expected a GatewayError, got %v", err)
		}
		return g
	}
	denied := gerr(func() error {
		_, err := client.MuteMemberFor(ctx, &group, 10003, 10*time.Minute, onebotgateway.OnBehalfOfUser(10002))
		return err
	}())
	protected := gerr(func() error { _, err := client.MuteMember(ctx, nil, 10001, 500*time.Millisecond); return err }())
	notAdmin := gerr(func() error { _, err := client.MuteAll(ctx, &other, true); return err }())
	unsupported := gerr(client.SetTyping(ctx, 10003))
	if denied.Code != codes.PermissionDenied || !denied.IsPolicyDenied() || denied.Metadata["rule"] != "none" {
		t.Errorf("denied: %v", denied)
	}
	if !protected.IsProtectedMember() || protected.Metadata["why"] != "owner" {
		t.Errorf("protected: %v", protected)
	}
	if !notAdmin.IsBotNotAdmin() || notAdmin.Metadata["needed_role"] != "admin" {
		t.Errorf("not admin: %v", notAdmin)
	}
	if unsupported.Code != codes.Unimplemented || !unsupported.IsNotSupportedByImplementation() {
		t.Errorf("unsupported: %v", unsupported)
	}
	if denied.IsBotNotAdmin() || unsupported.IsProtectedMember() || notAdmin.IsPolicyDenied() {
		t.Error("a predicate answered for another reason")
	}
	if r, err := client.KickMember(ctx, &group, 10003, true); err != nil || r.GetUserId() != 10003 {
		t.Fatalf("kick: %v %v", r, err)
	}
	if r, err := client.SetMemberCard(ctx, &group, 10003, "新名片"); err != nil || r.GetUserId() != 10003 {
		t.Fatalf("card: %v %v", r, err)
	}
	seen := fake.seen()
	mute, lift := seen[0].(*gatewayv1.MuteMemberRequest), seen[1].(*gatewayv1.MuteMemberRequest)
	if mute.GetGroupId() != group || mute.GetUserId() != 10003 || mute.GetDurationSecs() != 600 || mute.GetOnBehalfOf().GetUserId() != 10002 {
		t.Errorf("mute: %v", mute)
	}
	if lift.GetDurationSecs() != 1 || lift.GroupId != nil { // a part second rounds up
		t.Errorf("short mute: %v", lift)
	}
	if all := seen[2].(*gatewayv1.MuteAllRequest); all.GetGroupId() != other || !all.GetEnable() {
		t.Errorf("mute all: %v", all)
	}
	if kick := seen[4].(*gatewayv1.KickMemberRequest); !kick.GetRejectRejoin() {
		t.Errorf("kick: %v", kick)
	}
	if card := seen[5].(*gatewayv1.SetMemberCardRequest); card.GetCard() != "新名片" {
		t.Errorf("card: %v", card)
	}
}

func TestAVoiceIsUploadedAsARecord(t *testing.T) {
	client, fake, ctx := startGroupActionsFake(t)
	voice := filepath.Join(t.TempDir(), "hello.amr")
	if err := os.WriteFile(voice, append([]byte("#!AMR\n"), make([]byte, 32)...), 0o600); err != nil {
		t.Fatal(err)
	}
	group := int64(20000003)
	sent, err := client.Send(ctx, onebotgateway.Message{GroupID: &group, Text: "听", Voices: []onebotgateway.Media{onebotgateway.Path(voice)}})
	if err != nil || sent.GetMedia().GetVoices() != 1 {
		t.Fatalf("send: %v %v", sent, err)
	}
	_, err = client.Send(ctx, onebotgateway.Message{GroupID: &group, Voices: []onebotgateway.Media{onebotgateway.Path(voice), onebotgateway.Path(voice)}})
	if cerr, ok := onebotgateway.AsClientError(err); !ok || cerr.Field != "Voices" {
		t.Fatalf("two voices: %v", err)
	}
	if len(fake.uploadKinds) != 1 || fake.uploadKinds[0] != gatewayv1.MediaKind_MEDIA_KIND_RECORD {
		t.Fatalf("upload kinds: %v", fake.uploadKinds)
	}
	req := fake.seen()[0].(*gatewayv1.SendMessageRequest)
	if len(req.GetVoices()) != 1 || req.GetVoices()[0].GetMediaId() != "v1" {
		t.Fatalf("voices: %v", req.GetVoices())
	}
}
