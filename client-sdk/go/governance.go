package onebotgateway

import (
	"context"
	"io"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"

	gatewayv1 "github.com/onebot-gateway/onebot-gateway/client-sdk/go/onebot/gateway/v1"
)

// ListApprovals lists the approvals of the client's account in state
// (ApprovalState_APPROVAL_STATE_UNSPECIFIED: every state), newest first.
func (c *Client) ListApprovals(ctx context.Context, state gatewayv1.ApprovalState) ([]*gatewayv1.Approval, error) {
	r, err := c.Approvals.ListApprovals(ctx, &gatewayv1.ListApprovalsRequest{AccountId: c.accountID, State: state})
	if err != nil {
		return nil, wrap(err)
	}
	return r.GetApprovals(), nil
}

// GetApproval reads one approval, at once.
func (c *Client) GetApproval(ctx context.Context, approvalID string) (*gatewayv1.Approval, error) {
	return c.WaitApproval(ctx, approvalID, 0)
}

// WaitApproval reads one approval once it is no longer pending or executing (see
// IsApprovalOpen), or after wait (at most 10 minutes, and the call's deadline), whichever comes
// first. A zero wait answers at once.
func (c *Client) WaitApproval(ctx context.Context, approvalID string, wait time.Duration) (*gatewayv1.Approval, error) {
	req := &gatewayv1.GetApprovalRequest{ApprovalId: approvalID}
	if wait > 0 {
		req.Wait = durationpb.New(wait)
	}
	r, err := c.Approvals.GetApproval(ctx, req)
	if err != nil {
		return nil, wrap(err)
	}
	return r.GetApproval(), nil
}

// Approve approves (and so executes, before it returns) a pending approval; needs a token with
// approve = true. The approval comes back EXECUTED or FAILED.
func (c *Client) Approve(ctx context.Context, approvalID string) (*gatewayv1.Approval, error) {
	return c.decide(ctx, approvalID, true)
}

// Reject rejects a pending approval; needs a token with approve = true.
func (c *Client) Reject(ctx context.Context, approvalID string) (*gatewayv1.Approval, error) {
	return c.decide(ctx, approvalID, false)
}

func (c *Client) decide(ctx context.Context, approvalID string, approve bool) (*gatewayv1.Approval, error) {
	r, err := c.Approvals.DecideApproval(ctx, &gatewayv1.DecideApprovalRequest{ApprovalId: approvalID, Approve: approve})
	if err != nil {
		return nil, wrap(err)
	}
	return r.GetApproval(), nil
}

// IsApprovalOpen reports whether an approval may still run: PENDING (waiting for a bot owner) or
// APPROVED (executing).
func IsApprovalOpen(approval *gatewayv1.Approval) bool {
	switch approval.GetState() {
	case gatewayv1.ApprovalState_APPROVAL_STATE_PENDING, gatewayv1.ApprovalState_APPROVAL_STATE_APPROVED:
		return true
	}
	return false
}

// AuditPages iterates over the pages of an audit listing (see AuditRecords).
type AuditPages struct {
	client *Client
	ctx    context.Context
	req    *gatewayv1.ListAuditRecordsRequest
	done   bool
}

// Next returns the next (older) page; io.EOF after the last one.
func (p *AuditPages) Next() (*gatewayv1.ListAuditRecordsResponse, error) {
	if p.done {
		return nil, io.EOF
	}
	page, err := p.client.Audit.ListAuditRecords(p.ctx, p.req)
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

// AuditRecords lists the audit records req selects (Since, Until, Action, Target, Decision,
// Limit), newest first, one page at a time by Next. An empty AccountId means the client's
// account; req is used (and its PageToken advanced) by the iterator.
func (c *Client) AuditRecords(ctx context.Context, req *gatewayv1.ListAuditRecordsRequest) *AuditPages {
	if req.GetAccountId() == "" {
		req.AccountId = c.accountID
	}
	return &AuditPages{client: c, ctx: ctx, req: req}
}
