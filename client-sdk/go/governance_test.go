package onebotgateway_test

// Offline tests of the on-behalf-of, approval and audit helpers, against an in-process fake
// gateway that records the requests reaching it.

import (
	"context"
	"errors"
	"io"
	"net"
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

type governanceFake struct {
	gatewayv1.UnimplementedMessageServiceServer
	gatewayv1.UnimplementedGroupServiceServer
	gatewayv1.UnimplementedApprovalServiceServer
	gatewayv1.UnimplementedAuditServiceServer
	mu       sync.Mutex
	requests []proto.Message
}

func (f *governanceFake) record(req proto.Message) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, req)
}

func (f *governanceFake) seen() []proto.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]proto.Message(nil), f.requests...)
}

func (f *governanceFake) SendMessage(_ context.Context, req *gatewayv1.SendMessageRequest) (*gatewayv1.SendMessageResponse, error) {
	f.record(req)
	if req.GetText() == "hold" {
		s, _ := status.New(codes.FailedPrecondition, "held for approval a1").WithDetails(&errdetails.ErrorInfo{
			Reason: "APPROVAL_PENDING", Domain: onebotgateway.ErrorDomain,
			Metadata: map[string]string{"approval_id": "a1", "rule": "0", "action": "send"},
		})
		return nil, s.Err()
	}
	return &gatewayv1.SendMessageResponse{MessageIds: []int64{1}}, nil
}

func (f *governanceFake) RecallMessage(_ context.Context, req *gatewayv1.RecallMessageRequest) (*gatewayv1.RecallMessageResponse, error) {
	f.record(req)
	return &gatewayv1.RecallMessageResponse{}, nil
}

func (f *governanceFake) PokeMember(_ context.Context, req *gatewayv1.PokeMemberRequest) (*gatewayv1.PokeMemberResponse, error) {
	f.record(req)
	return &gatewayv1.PokeMemberResponse{}, nil
}

func (f *governanceFake) ListApprovals(_ context.Context, req *gatewayv1.ListApprovalsRequest) (*gatewayv1.ListApprovalsResponse, error) {
	f.record(req)
	return &gatewayv1.ListApprovalsResponse{Approvals: []*gatewayv1.Approval{{ApprovalId: "a1", State: gatewayv1.ApprovalState_APPROVAL_STATE_PENDING}}}, nil
}

func (f *governanceFake) GetApproval(_ context.Context, req *gatewayv1.GetApprovalRequest) (*gatewayv1.GetApprovalResponse, error) {
	f.record(req)
	state := gatewayv1.ApprovalState_APPROVAL_STATE_PENDING
	if req.GetWait() != nil {
		state = gatewayv1.ApprovalState_APPROVAL_STATE_EXECUTED
	}
	return &gatewayv1.GetApprovalResponse{Approval: &gatewayv1.Approval{ApprovalId: req.GetApprovalId(), State: state}}, nil
}

func (f *governanceFake) DecideApproval(_ context.Context, req *gatewayv1.DecideApprovalRequest) (*gatewayv1.DecideApprovalResponse, error) {
	f.record(req)
	state := gatewayv1.ApprovalState_APPROVAL_STATE_REJECTED
	if req.GetApprove() {
		state = gatewayv1.ApprovalState_APPROVAL_STATE_EXECUTED
	}
	return &gatewayv1.DecideApprovalResponse{Approval: &gatewayv1.Approval{ApprovalId: req.GetApprovalId(), State: state}}, nil
}

func (f *governanceFake) ListAuditRecords(_ context.Context, req *gatewayv1.ListAuditRecordsRequest) (*gatewayv1.ListAuditRecordsResponse, error) {
	f.record(proto.Clone(req))
	switch req.GetPageToken() {
	case "":
		return &gatewayv1.ListAuditRecordsResponse{Records: []*gatewayv1.AuditRecord{{Id: 3}, {Id: 2}}, NextPageToken: "p2"}, nil
	case "p2":
		return &gatewayv1.ListAuditRecordsResponse{Records: []*gatewayv1.AuditRecord{{Id: 1}}}, nil
	}
	return nil, status.Error(codes.InvalidArgument, "bad page token")
}

func startGovernanceFake(t *testing.T) (*onebotgateway.Client, *governanceFake, context.Context) {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := grpc.NewServer()
	fake := &governanceFake{}
	gatewayv1.RegisterMessageServiceServer(server, fake)
	gatewayv1.RegisterGroupServiceServer(server, fake)
	gatewayv1.RegisterApprovalServiceServer(server, fake)
	gatewayv1.RegisterAuditServiceServer(server, fake)
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

func TestOnBehalfOfReachesTheGateway(t *testing.T) {
	client, fake, ctx := startGovernanceFake(t)
	received := &gatewayv1.ChatMessage{MessageId: 77, Chat: onebotgateway.GroupChat(20000003), Sender: &gatewayv1.Sender{UserId: 10001}}
	reply := onebotgateway.ReplyFor(received)
	reply.Text = "收到"
	if _, err := client.Send(ctx, reply); err != nil {
		t.Fatal(err)
	}
	privateReply := onebotgateway.ReplyFor(&gatewayv1.ChatMessage{MessageId: 88, Chat: onebotgateway.PrivateChat(10001)})
	privateReply.Text = "私聊"
	if _, err := client.Send(ctx, privateReply); err != nil {
		t.Fatal(err)
	}
	group := int64(20000003)
	if _, err := client.Send(ctx, onebotgateway.Message{GroupID: &group, Text: "for a user", OnBehalfOf: onebotgateway.OnBehalfOfUser(10002)}); err != nil {
		t.Fatal(err)
	}
	if err := client.RecallFor(ctx, 99, onebotgateway.OnBehalfOfMessage(77)); err != nil {
		t.Fatal(err)
	}
	if err := client.Recall(ctx, 100); err != nil {
		t.Fatal(err)
	}
	if _, err := client.PokeFor(ctx, &group, 10002, onebotgateway.OnBehalfOfUser(10001)); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Poke(ctx, nil, 10002); err != nil {
		t.Fatal(err)
	}
	seen := fake.seen()
	if len(seen) != 7 {
		t.Fatalf("%d requests", len(seen))
	}
	first := seen[0].(*gatewayv1.SendMessageRequest)
	if first.GetGroupId() != 20000003 || first.UserId != nil || first.GetReplyToMessageId() != 77 || first.GetOnBehalfOf().GetMessageId() != 77 || first.GetText() != "收到" || first.GetAccountId() != "bot1" {
		t.Errorf("reply for a group message: %v", first)
	}
	second := seen[1].(*gatewayv1.SendMessageRequest)
	if second.GroupId != nil || second.GetUserId() != 10001 || second.GetReplyToMessageId() != 88 || second.GetOnBehalfOf().GetMessageId() != 88 {
		t.Errorf("reply for a private message: %v", second)
	}
	third := seen[2].(*gatewayv1.SendMessageRequest)
	if _, ok := third.GetOnBehalfOf().GetRequester().(*gatewayv1.OnBehalfOf_UserId); !ok || third.GetOnBehalfOf().GetUserId() != 10002 {
		t.Errorf("send for a user: %v", third)
	}
	if r := seen[3].(*gatewayv1.RecallMessageRequest); r.GetMessageId() != 99 || r.GetOnBehalfOf().GetMessageId() != 77 {
		t.Errorf("recall for: %v", r)
	}
	if r := seen[4].(*gatewayv1.RecallMessageRequest); r.GetOnBehalfOf() != nil {
		t.Errorf("recall for nobody: %v", r)
	}
	if r := seen[5].(*gatewayv1.PokeMemberRequest); r.GetGroupId() != 20000003 || r.GetUserId() != 10002 || r.GetOnBehalfOf().GetUserId() != 10001 {
		t.Errorf("poke for: %v", r)
	}
	if r := seen[6].(*gatewayv1.PokeMemberRequest); r.GetOnBehalfOf() != nil || r.GroupId != nil {
		t.Errorf("poke for nobody: %v", r)
	}
}

func TestApprovalPendingNamesTheApproval(t *testing.T) {
	client, _, ctx := startGovernanceFake(t)
	group := int64(20000003)
	_, err := client.Send(ctx, onebotgateway.Message{GroupID: &group, Text: "hold"})
	gerr, ok := onebotgateway.AsGatewayError(err)
	if !ok || gerr.Code != codes.FailedPrecondition || !gerr.IsApprovalPending() || gerr.IsPolicyDenied() || gerr.ApprovalID() != "a1" {
		t.Fatalf("held send: %v", err)
	}
	if gerr.ErrorReason() != gatewayv1.ErrorReason_ERROR_REASON_APPROVAL_PENDING {
		t.Fatalf("reason %v", gerr.ErrorReason())
	}
	denied, _ := status.New(codes.PermissionDenied, "no").WithDetails(&errdetails.ErrorInfo{
		Reason: "POLICY_DENIED", Domain: onebotgateway.ErrorDomain, Metadata: map[string]string{"approval_id": "x", "role": "member"},
	})
	e := onebotgateway.FromStatus(denied)
	if !e.IsPolicyDenied() || e.IsApprovalPending() || e.ApprovalID() != "" || e.Metadata["role"] != "member" {
		t.Fatalf("policy denied: %v", e)
	}
}

func TestApprovalHelpers(t *testing.T) {
	client, fake, ctx := startGovernanceFake(t)
	list, err := client.ListApprovals(ctx, gatewayv1.ApprovalState_APPROVAL_STATE_PENDING)
	if err != nil || len(list) != 1 || !onebotgateway.IsApprovalOpen(list[0]) {
		t.Fatalf("list: %v %v", list, err)
	}
	now, err := client.GetApproval(ctx, "a1")
	if err != nil || now.GetState() != gatewayv1.ApprovalState_APPROVAL_STATE_PENDING {
		t.Fatalf("get: %v %v", now, err)
	}
	done, err := client.WaitApproval(ctx, "a1", 90*time.Second)
	if err != nil || done.GetState() != gatewayv1.ApprovalState_APPROVAL_STATE_EXECUTED || onebotgateway.IsApprovalOpen(done) {
		t.Fatalf("wait: %v %v", done, err)
	}
	approved, err := client.Approve(ctx, "a1")
	if err != nil || approved.GetState() != gatewayv1.ApprovalState_APPROVAL_STATE_EXECUTED {
		t.Fatalf("approve: %v %v", approved, err)
	}
	rejected, err := client.Reject(ctx, "a2")
	if err != nil || rejected.GetState() != gatewayv1.ApprovalState_APPROVAL_STATE_REJECTED {
		t.Fatalf("reject: %v %v", rejected, err)
	}
	seen := fake.seen()
	if r := seen[0].(*gatewayv1.ListApprovalsRequest); r.GetAccountId() != "bot1" || r.GetState() != gatewayv1.ApprovalState_APPROVAL_STATE_PENDING {
		t.Errorf("list request: %v", r)
	}
	if r := seen[1].(*gatewayv1.GetApprovalRequest); r.GetWait() != nil {
		t.Errorf("get waits: %v", r)
	}
	if r := seen[2].(*gatewayv1.GetApprovalRequest); r.GetWait().AsDuration() != 90*time.Second {
		t.Errorf("wait request: %v", r)
	}
	if r := seen[3].(*gatewayv1.DecideApprovalRequest); !r.GetApprove() || r.GetApprovalId() != "a1" {
		t.Errorf("approve request: %v", r)
	}
	if r := seen[4].(*gatewayv1.DecideApprovalRequest); r.GetApprove() || r.GetApprovalId() != "a2" {
		t.Errorf("reject request: %v", r)
	}
	if onebotgateway.IsApprovalOpen(nil) {
		t.Error("a nil approval is open")
	}
}

func TestAuditRecordsFollowThePages(t *testing.T) {
	client, fake, ctx := startGovernanceFake(t)
	pages := client.AuditRecords(ctx, &gatewayv1.ListAuditRecordsRequest{Action: "send", Decision: gatewayv1.AuditDecision_AUDIT_DECISION_PENDING})
	var ids []int64
	for {
		page, err := pages.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.GetRecords() {
			ids = append(ids, r.GetId())
		}
	}
	if len(ids) != 3 || ids[0] != 3 || ids[2] != 1 {
		t.Fatalf("ids %v", ids)
	}
	seen := fake.seen()
	if len(seen) != 2 {
		t.Fatalf("%d requests", len(seen))
	}
	first, second := seen[0].(*gatewayv1.ListAuditRecordsRequest), seen[1].(*gatewayv1.ListAuditRecordsRequest)
	if first.GetAccountId() != "bot1" || first.GetPageToken() != "" || first.GetAction() != "send" || first.GetDecision() != gatewayv1.AuditDecision_AUDIT_DECISION_PENDING {
		t.Errorf("first page: %v", first)
	}
	if second.GetPageToken() != "p2" || second.GetAction() != "send" {
		t.Errorf("second page: %v", second)
	}
}
