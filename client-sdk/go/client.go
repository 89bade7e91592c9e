// Package onebotgateway is the Go client of onebot-gateway, a gRPC front for QQ bots
// (OneBot v11).
//
// The generated code lives in package gatewayv1
// (github.com/onebot-gateway/onebot-gateway/client-sdk/go/onebot/gateway/v1). This package
// adds a Client built from an address, an optional bearer token and TLS settings, one method
// per RPC, Upload (streams a file in 256 KiB chunks) and Send (uploads local media first), and
// *GatewayError, which carries the ErrorInfo reason, metadata and RetryInfo delay.
package onebotgateway

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	gatewayv1 "github.com/onebot-gateway/onebot-gateway/client-sdk/go/onebot/gateway/v1"
)

// DefaultAddress is the gateway's default listen address.
const DefaultAddress = "http://127.0.0.1:50051"

// AccountHealthServicePrefix is the prefix of the per-account health service names:
// CheckHealth(ctx, AccountHealthServicePrefix+id) is the health of account id (SERVING while
// its OneBot connection is up). The gateway registers these names with its health service;
// they are not proto services. Built from the API's proto package.
var AccountHealthServicePrefix = string(gatewayv1.File_onebot_gateway_v1_account_service_proto.Package()) + ".account."

// AccountMetadataKey is the request metadata naming the account of a call. Every call sends
// it (the client's account, "default" when empty) so a proxy in front of many gateways can
// route each account to the gateway holding it; the gateway refuses a request whose
// AccountId names another account.
const AccountMetadataKey = "x-onebot-account"

// MaxReconnects is how many reconnect attempts in a row an EventStream makes before the error
// reaches the caller.
const MaxReconnects = 10

// maxMessageBytes is the largest response the client accepts.
const maxMessageBytes = 64 * 1024 * 1024

// Options configures a Client. The zero value connects to DefaultAddress in plaintext.
type Options struct {
	// Address is http://host:port (plaintext) or https://host:port (TLS); a bare host:port
	// is plaintext.
	Address string
	// Token, when set, is sent as "authorization: Bearer <token>" on every call.
	Token string
	// CAFile is a PEM file of the CA that signed the gateway's certificate (https only; the
	// system's roots otherwise).
	CAFile string
	// ServerName overrides the name checked against the gateway's certificate.
	ServerName string
	// AccountID is the account the helpers act as (empty: the gateway's "default"), sent as
	// AccountMetadataKey on every call.
	AccountID string
	// NotLeaderRetryBudget is how long, in all, a unary call refused with Unavailable
	// NOT_LEADER (a standby gateway under [ha]: nothing was done) is retried; 0 means
	// DefaultNotLeaderRetryBudget (30 s). Each retry waits the refusal's RetryInfo delay, or
	// 250 ms doubling to 5 s with jitter; the context's deadline also ends it, and then the
	// last NOT_LEADER error is returned. No other error is retried, and streaming calls
	// (uploads, downloads) are not; the EventStream resumes after NOT_LEADER by itself.
	NotLeaderRetryBudget time.Duration
	// DisableNotLeaderRetry turns that retrying off: a NOT_LEADER refusal is returned at once.
	DisableNotLeaderRetry bool
	// DialOptions are appended to the client's own.
	DialOptions []grpc.DialOption
}

// Client is a connection to one gateway. It is safe for concurrent use.
type Client struct {
	conn      *grpc.ClientConn
	accountID string

	// The generated service clients.
	Messages gatewayv1.MessageServiceClient
	Groups   gatewayv1.GroupServiceClient
	Media    gatewayv1.MediaServiceClient
	Tools    gatewayv1.AgentToolServiceClient
	Accounts gatewayv1.AccountServiceClient
	Events   gatewayv1.EventServiceClient
	// Approvals and Audit are the governance services (see governance.go).
	Approvals gatewayv1.ApprovalServiceClient
	Audit     gatewayv1.AuditServiceClient
	Health    healthpb.HealthClient
}

// bearer adds the authorization header to every call.
type bearer struct {
	header string
	secure bool
}

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": b.header}, nil
}

func (b bearer) RequireTransportSecurity() bool { return b.secure }

// New creates a client; the connection is opened on first use.
func New(opts Options) (*Client, error) {
	address := opts.Address
	if address == "" {
		address = DefaultAddress
	}
	dial := []grpc.DialOption{grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessageBytes))}
	var target string
	secure := strings.HasPrefix(address, "https://")
	switch {
	case secure:
		target = strings.TrimPrefix(address, "https://")
		cfg := &tls.Config{ServerName: opts.ServerName, MinVersion: tls.VersionTLS12}
		if opts.CAFile != "" {
			pem, err := os.ReadFile(opts.CAFile)
			if err != nil {
				return nil, &ClientError{Message: "reading the CA file: " + err.Error(), Field: "CAFile", Err: err}
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, &ClientError{Message: opts.CAFile + " holds no PEM certificate", Field: "CAFile"}
			}
			cfg.RootCAs = pool
		}
		dial = append(dial, grpc.WithTransportCredentials(credentials.NewTLS(cfg)))
	default:
		if opts.CAFile != "" || opts.ServerName != "" {
			return nil, clientErr("TLS settings need an https:// address")
		}
		target = strings.TrimPrefix(address, "http://")
		dial = append(dial, grpc.WithTransportCredentials(insecure.NewCredentials()))
	}
	if opts.Token != "" {
		for _, r := range opts.Token {
			if r < 0x20 || r > 0x7e {
				return nil, &ClientError{Message: "the token must be printable ASCII", Field: "Token"}
			}
		}
		dial = append(dial, grpc.WithPerRPCCredentials(bearer{header: "Bearer " + opts.Token, secure: secure}))
	}
	account := opts.AccountID
	if account == "" {
		account = "default"
	}
	for _, r := range account {
		if r <= 0x20 || r > 0x7e {
			return nil, &ClientError{Message: fmt.Sprintf("account id %q: account ids are ASCII letters, digits, _ and -", account), Field: "AccountID"}
		}
	}
	dial = append(dial,
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, callOpts ...grpc.CallOption) error {
			return invoker(withAccount(ctx, account), method, req, reply, cc, callOpts...)
		}),
		grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, callOpts ...grpc.CallOption) (grpc.ClientStream, error) {
			return streamer(withAccount(ctx, account), desc, cc, method, callOpts...)
		}),
	)
	if !opts.DisableNotLeaderRetry {
		budget := opts.NotLeaderRetryBudget
		if budget <= 0 {
			budget = DefaultNotLeaderRetryBudget
		}
		dial = append(dial, grpc.WithChainUnaryInterceptor(notLeaderRetry(budget)))
	}
	dial = append(dial, opts.DialOptions...)
	conn, err := grpc.NewClient(strings.TrimSuffix(target, "/"), dial...)
	if err != nil {
		return nil, &ClientError{Message: "creating the connection: " + err.Error(), Field: "Address", Err: err}
	}
	return &Client{
		conn:      conn,
		accountID: opts.AccountID,
		Messages:  gatewayv1.NewMessageServiceClient(conn),
		Groups:    gatewayv1.NewGroupServiceClient(conn),
		Media:     gatewayv1.NewMediaServiceClient(conn),
		Tools:     gatewayv1.NewAgentToolServiceClient(conn),
		Accounts:  gatewayv1.NewAccountServiceClient(conn),
		Events:    gatewayv1.NewEventServiceClient(conn),
		Approvals: gatewayv1.NewApprovalServiceClient(conn),
		Audit:     gatewayv1.NewAuditServiceClient(conn),
		Health:    healthpb.NewHealthClient(conn),
	}, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// AccountID is the account the helpers act as.
func (c *Client) AccountID() string { return c.accountID }

// GroupChat is the chat of a QQ group.
func GroupChat(groupID int64) *gatewayv1.Chat {
	return &gatewayv1.Chat{Kind: &gatewayv1.Chat_GroupId{GroupId: groupID}}
}

// PrivateChat is the private chat with a QQ user.
func PrivateChat(userID int64) *gatewayv1.Chat {
	return &gatewayv1.Chat{Kind: &gatewayv1.Chat_UserId{UserId: userID}}
}

// History reads one page of a chat's history, oldest first (count 0 = 20). Pass the
// response's NextAnchorMessageId as anchor for the older page; nil for the newest.
func (c *Client) History(ctx context.Context, chat *gatewayv1.Chat, count int32, anchor *int64) (*gatewayv1.GetHistoryResponse, error) {
	r, err := c.Messages.GetHistory(ctx, &gatewayv1.GetHistoryRequest{
		AccountId: c.accountID, Chat: chat, Count: count, AnchorMessageId: anchor,
	})
	return r, wrap(err)
}

// HistoryUntil reads up to count messages of chat sent before until, from the gateway's
// archive merged with the peer's history, oldest first (pass NextAnchorMessageId as anchor for
// the older page).
func (c *Client) HistoryUntil(ctx context.Context, chat *gatewayv1.Chat, count int32, until time.Time, anchor *int64) (*gatewayv1.GetHistoryResponse, error) {
	r, err := c.Messages.GetHistory(ctx, &gatewayv1.GetHistoryRequest{
		AccountId: c.accountID, Chat: chat, Count: count, AnchorMessageId: anchor,
		Until: timestamppb.New(until),
	})
	return r, wrap(err)
}

// SearchPages iterates over the pages of a search (see Search).
type SearchPages struct {
	client *Client
	ctx    context.Context
	req    *gatewayv1.SearchMessagesRequest
	done   bool
}

// Next returns the next (older) page; io.EOF after the last one.
func (p *SearchPages) Next() (*gatewayv1.SearchMessagesResponse, error) {
	if p.done {
		return nil, io.EOF
	}
	page, err := p.client.Messages.SearchMessages(p.ctx, p.req)
	if err != nil {
		return nil, wrap(err)
	}
	if page.GetNextPageToken() == "" {
		p.done = true
	} else {
		p.req.PageToken = page.GetNextPageToken()
	}
	return page, nil
}

// Search searches the gateway's message archive: the pages of req's matches, newest page first
// (each page oldest first), fetched one at a time by Next. An empty AccountId means the
// client's account; req is used (and its PageToken advanced) by the iterator.
func (c *Client) Search(ctx context.Context, req *gatewayv1.SearchMessagesRequest) *SearchPages {
	if req.GetAccountId() == "" {
		req.AccountId = c.accountID
	}
	return &SearchPages{client: c, ctx: ctx, req: req}
}

// Members lists a group's members (limit 0 = 100; noCache nil = cached when fresh).
func (c *Client) Members(ctx context.Context, groupID int64, limit int32, noCache *bool) (*gatewayv1.ListGroupMembersResponse, error) {
	r, err := c.Groups.ListGroupMembers(ctx, &gatewayv1.ListGroupMembersRequest{
		AccountId: c.accountID, GroupId: groupID, Limit: limit, NoCache: noCache,
	})
	return r, wrap(err)
}

// GetMessage reads one message by id, its quote resolved one level deep, with its history line.
func (c *Client) GetMessage(ctx context.Context, messageID int64) (*gatewayv1.GetMessageResponse, error) {
	r, err := c.Messages.GetMessage(ctx, &gatewayv1.GetMessageRequest{AccountId: c.accountID, MessageId: messageID})
	return r, wrap(err)
}

// Recall recalls (撤回) a message: the bot's own within 2 minutes, or a member's when the bot is a
// group admin.
func (c *Client) Recall(ctx context.Context, messageID int64) error {
	return c.RecallFor(ctx, messageID, nil)
}

// RecallFor recalls a message on behalf of a QQ user (OnBehalfOfMessage, OnBehalfOfUser; nil:
// nobody): the gateway's [policy] rules decide by that user's role in the chat.
func (c *Client) RecallFor(ctx context.Context, messageID int64, onBehalfOf *gatewayv1.OnBehalfOf) error {
	_, err := c.Messages.RecallMessage(ctx, &gatewayv1.RecallMessageRequest{
		AccountId: c.accountID, MessageId: messageID, OnBehalfOf: onBehalfOf,
	})
	return wrap(err)
}

// GetForward reads the messages of a merged-forward bundle (ForwardSegment.id); nested bundles stay
// forward segments.
func (c *Client) GetForward(ctx context.Context, forwardID string) (*gatewayv1.GetForwardMessagesResponse, error) {
	r, err := c.Messages.GetForwardMessages(ctx, &gatewayv1.GetForwardMessagesRequest{AccountId: c.accountID, ForwardId: forwardID})
	return r, wrap(err)
}

// ListGroups lists the groups the account may use.
func (c *Client) ListGroups(ctx context.Context) (*gatewayv1.ListGroupsResponse, error) {
	r, err := c.Groups.ListGroups(ctx, &gatewayv1.ListGroupsRequest{AccountId: c.accountID})
	return r, wrap(err)
}

// Poke pokes userID in groupID (nil: the account's only whitelisted group).
func (c *Client) Poke(ctx context.Context, groupID *int64, userID int64) (*gatewayv1.PokeMemberResponse, error) {
	return c.PokeFor(ctx, groupID, userID, nil)
}

// PokeFor pokes on behalf of a QQ user (OnBehalfOfMessage, OnBehalfOfUser; nil: nobody): the
// gateway's [policy] rules decide by that user's role in the group.
func (c *Client) PokeFor(ctx context.Context, groupID *int64, userID int64, onBehalfOf *gatewayv1.OnBehalfOf) (*gatewayv1.PokeMemberResponse, error) {
	r, err := c.Groups.PokeMember(ctx, &gatewayv1.PokeMemberRequest{
		AccountId: c.accountID, GroupId: groupID, UserId: userID, OnBehalfOf: onBehalfOf,
	})
	return r, wrap(err)
}

// ListAccounts lists every configured account with its connection state.
func (c *Client) ListAccounts(ctx context.Context) ([]*gatewayv1.Account, error) {
	r, err := c.Accounts.ListAccounts(ctx, &gatewayv1.ListAccountsRequest{})
	if err != nil {
		return nil, wrap(err)
	}
	return r.GetAccounts(), nil
}

// ListTools lists the agent tools with their JSON Schemas.
func (c *Client) ListTools(ctx context.Context) ([]*gatewayv1.Tool, error) {
	r, err := c.Tools.ListTools(ctx, &gatewayv1.ListToolsRequest{})
	if err != nil {
		return nil, wrap(err)
	}
	return r.GetTools(), nil
}

// CallTool calls an agent tool with a JSON object of arguments. A failed tool call is a
// response with IsError set, not an error.
func (c *Client) CallTool(ctx context.Context, name, argumentsJSON string) (*gatewayv1.CallToolResponse, error) {
	r, err := c.Tools.CallTool(ctx, &gatewayv1.CallToolRequest{Name: name, ArgumentsJson: argumentsJSON})
	return r, wrap(err)
}

// withAccount adds the account metadata unless the call already carries one.
func withAccount(ctx context.Context, account string) context.Context {
	if md, ok := metadata.FromOutgoingContext(ctx); ok && len(md.Get(AccountMetadataKey)) > 0 {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, AccountMetadataKey, account)
}

// EventStream is a running StreamEvents call that resumes by itself: when the connection
// breaks (a proxy or the network restarted: Unavailable, Internal, Unknown, Canceled), the
// gateway drops it for lagging, or a standby gateway refuses it (Unavailable NOT_LEADER, after
// its RetryInfo delay), Next reconnects with AfterSequence set to the last event it
// returned (or the last heartbeat's position), with backoff (100 ms doubling to 5 s,
// MaxReconnects attempts in a row), and returns every event once. Heartbeats are never
// returned.
type EventStream struct {
	ctx        context.Context
	events     gatewayv1.EventServiceClient
	request    *gatewayv1.StreamEventsRequest
	stream     grpc.ServerStreamingClient[gatewayv1.StreamEventsResponse]
	position   *uint64
	failures   int
	reconnects int
}

// Next returns the next event; io.EOF when the gateway ended the stream. Cancel the context
// passed to StreamEvents to stop.
func (s *EventStream) Next() (*gatewayv1.Event, error) {
	for {
		if s.stream == nil {
			req := proto.Clone(s.request).(*gatewayv1.StreamEventsRequest)
			req.AfterSequence = s.position
			stream, err := s.events.StreamEvents(s.ctx, req)
			if err != nil {
				if retryErr := s.retry(err); retryErr != nil {
					return nil, retryErr
				}
				continue
			}
			s.stream = stream
		}
		r, err := s.stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		if err != nil {
			s.stream = nil
			if retryErr := s.retry(err); retryErr != nil {
				return nil, retryErr
			}
			s.reconnects++
			continue
		}
		s.failures = 0
		if beat := r.GetHeartbeat(); beat != nil {
			last := beat.GetLastSequence()
			if s.position == nil || last > *s.position {
				s.position = &last
			}
		}
		event := r.GetEvent()
		if event == nil || (s.position != nil && event.GetSequence() <= *s.position) {
			continue
		}
		seq := event.GetSequence()
		s.position = &seq
		return event, nil
	}
}

// Reconnects is how many times the stream reconnected after a broken connection.
func (s *EventStream) Reconnects() int { return s.reconnects }

// retry waits before the next attempt after err, or returns the error when it is not worth a
// retry, the attempts are used up or the context is done.
func (s *EventStream) retry(err error) error {
	wrapped := wrap(err)
	var gw *GatewayError
	if !errors.As(wrapped, &gw) || !resumable(gw) || s.failures >= MaxReconnects || s.ctx.Err() != nil {
		return wrapped
	}
	s.failures++
	wait := backoff(s.failures)
	if gw.IsNotLeader() && gw.RetryDelay > 0 {
		wait = gw.RetryDelay
	}
	select {
	case <-time.After(wait):
		return nil
	case <-s.ctx.Done():
		return wrapped
	}
}

// resumable is true for a broken connection and for a subscriber the gateway dropped for
// lagging: the stream is reopened from its position.
func resumable(err *GatewayError) bool {
	switch err.Code {
	case codes.Unavailable, codes.Internal, codes.Unknown, codes.Canceled:
		return true
	case codes.ResourceExhausted:
		return err.Reason == "EVENT_STREAM_LAGGED"
	}
	return false
}

// backoff is the wait before reconnect attempt n (from 1): 100 ms doubling to 5 s, with up to
// half taken off at random so the clients of one proxy do not all come back at once.
func backoff(n int) time.Duration {
	base := min(100*time.Millisecond<<min(n-1, 6), 5*time.Second)
	return base - time.Duration(rand.Int64N(int64(base/2)+1))
}

// StreamEvents follows the account's events. An empty AccountId is filled with the client's.
// The first call is made at once (its error returned); later reconnects happen in Next.
func (c *Client) StreamEvents(ctx context.Context, req *gatewayv1.StreamEventsRequest) (*EventStream, error) {
	if req.GetAccountId() == "" {
		req.AccountId = c.accountID
	}
	s, err := c.Events.StreamEvents(ctx, req)
	if err != nil {
		return nil, wrap(err)
	}
	return &EventStream{ctx: ctx, events: c.Events, request: req, stream: s, position: req.AfterSequence}, nil
}

// CheckHealth returns the health of service ("" = the gateway) as a status name such as
// "SERVING".
func (c *Client) CheckHealth(ctx context.Context, service string) (string, error) {
	r, err := c.Health.Check(ctx, &healthpb.HealthCheckRequest{Service: service})
	if err != nil {
		return "", wrap(err)
	}
	return r.GetStatus().String(), nil
}
