package onebotgateway_test

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"

	onebotgateway "github.com/onebot-gateway/onebot-gateway/client-sdk/go"
	gatewayv1 "github.com/onebot-gateway/onebot-gateway/client-sdk/go/onebot/gateway/v1"
)

// standby refuses the first refusals calls with Unavailable reason (RetryInfo retry when set),
// then answers with one account.
type standby struct {
	gatewayv1.UnimplementedAccountServiceServer
	calls    atomic.Int32
	refusals int32
	reason   string
	retry    time.Duration
}

func (s *standby) ListAccounts(context.Context, *gatewayv1.ListAccountsRequest) (*gatewayv1.ListAccountsResponse, error) {
	if s.calls.Add(1) <= s.refusals {
		details := []protoadapt.MessageV1{&errdetails.ErrorInfo{
			Reason: s.reason, Domain: onebotgateway.ErrorDomain,
			Metadata: map[string]string{"account_id": "default", "leader": "gw-a", "advertise": "10.0.0.1:50051"},
		}}
		if s.retry > 0 {
			details = append(details, &errdetails.RetryInfo{RetryDelay: durationpb.New(s.retry)})
		}
		st, err := status.New(codes.Unavailable, "another gateway leads account default").WithDetails(details...)
		if err != nil {
			return nil, err
		}
		return nil, st.Err()
	}
	return &gatewayv1.ListAccountsResponse{Accounts: []*gatewayv1.Account{{AccountId: "default"}}}, nil
}

// serveStandby serves s on a loopback port and returns a client of it with opts.
func serveStandby(t *testing.T, s *standby, opts onebotgateway.Options) *onebotgateway.Client {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := grpc.NewServer()
	gatewayv1.RegisterAccountServiceServer(server, s)
	go func() { _ = server.Serve(lis) }()
	t.Cleanup(server.Stop)
	opts.Address = "http://" + lis.Addr().String()
	client, err := onebotgateway.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	return client
}

func TestNotLeaderIsRetriedUntilTheLeaderAnswers(t *testing.T) {
	s := &standby{refusals: 3, reason: "NOT_LEADER", retry: 20 * time.Millisecond}
	client := serveStandby(t, s, onebotgateway.Options{})
	accounts, err := client.ListAccounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(accounts) != 1 || s.calls.Load() != 4 {
		t.Fatalf("accounts %v after %d calls", accounts, s.calls.Load())
	}
}

func TestNotLeaderWithoutRetryInfoBacksOffFrom250ms(t *testing.T) {
	s := &standby{refusals: 1, reason: "NOT_LEADER"}
	client := serveStandby(t, s, onebotgateway.Options{})
	start := time.Now()
	if _, err := client.ListAccounts(context.Background()); err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed < 125*time.Millisecond || s.calls.Load() != 2 {
		t.Fatalf("%d calls in %s", s.calls.Load(), elapsed)
	}
}

func TestNotLeaderRetryOffReturnsTheRefusal(t *testing.T) {
	s := &standby{refusals: 1, reason: "NOT_LEADER", retry: 20 * time.Millisecond}
	client := serveStandby(t, s, onebotgateway.Options{DisableNotLeaderRetry: true})
	_, err := client.ListAccounts(context.Background())
	gerr, ok := onebotgateway.AsGatewayError(err)
	if !ok || !gerr.IsNotLeader() || !onebotgateway.IsNotLeader(err) {
		t.Fatalf("err %v", err)
	}
	if gerr.Leader() != "gw-a" || gerr.Advertise() != "10.0.0.1:50051" || gerr.Metadata["account_id"] != "default" {
		t.Fatalf("metadata %v", gerr.Metadata)
	}
	if gerr.RetryDelay != 20*time.Millisecond || s.calls.Load() != 1 {
		t.Fatalf("delay %s after %d calls", gerr.RetryDelay, s.calls.Load())
	}
}

func TestNotLeaderRetryStopsAtTheBudgetOrDeadline(t *testing.T) {
	s := &standby{refusals: 1 << 30, reason: "NOT_LEADER", retry: 20 * time.Millisecond}
	client := serveStandby(t, s, onebotgateway.Options{NotLeaderRetryBudget: 150 * time.Millisecond})
	_, err := client.ListAccounts(context.Background())
	if !onebotgateway.IsNotLeader(err) {
		t.Fatalf("err %v", err)
	}
	if n := s.calls.Load(); n < 3 || n > 9 {
		t.Fatalf("%d calls in a 150 ms budget", n)
	}
	// The context's deadline, shorter than the default budget, ends it too, with the refusal.
	before := s.calls.Load()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	client = serveStandby(t, s, onebotgateway.Options{})
	start := time.Now()
	_, err = client.ListAccounts(ctx)
	if !onebotgateway.IsNotLeader(err) || time.Since(start) > time.Second || s.calls.Load()-before < 2 {
		t.Fatalf("err %v after %s, %d calls", err, time.Since(start), s.calls.Load()-before)
	}
}

func TestOtherUnavailableReasonsAreNotRetried(t *testing.T) {
	s := &standby{refusals: 1, reason: "ACCOUNT_OFFLINE", retry: 20 * time.Millisecond}
	client := serveStandby(t, s, onebotgateway.Options{})
	_, err := client.ListAccounts(context.Background())
	gerr, ok := onebotgateway.AsGatewayError(err)
	if !ok || gerr.Reason != "ACCOUNT_OFFLINE" || gerr.IsNotLeader() || onebotgateway.IsNotLeader(err) {
		t.Fatalf("err %v", err)
	}
	if s.calls.Load() != 1 {
		t.Fatalf("%d calls", s.calls.Load())
	}
}
