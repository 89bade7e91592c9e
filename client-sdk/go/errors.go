package onebotgateway

import (
	"errors"
	"fmt"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	gatewayv1 "github.com/onebot-gateway/onebot-gateway/client-sdk/go/onebot/gateway/v1"
)

// ErrorDomain is the ErrorInfo domain of the gateway's errors.
const ErrorDomain = "onebot-gateway"

// FieldViolation is one BadRequest field violation.
type FieldViolation struct {
	Field       string
	Description string
}

// GatewayError is a failed call with the gateway's google.rpc details decoded.
type GatewayError struct {
	// Code is the gRPC status code.
	Code codes.Code
	// Message is the status message.
	Message string
	// Reason is ErrorInfo.reason without the ERROR_REASON_ prefix (e.g. "GROUP_NOT_ALLOWED");
	// empty when the status carried no ErrorInfo.
	Reason string
	// Domain is ErrorInfo.domain ("onebot-gateway" for the gateway's errors).
	Domain string
	// Metadata is ErrorInfo.metadata: every dynamic value of the message.
	Metadata map[string]string
	// RetryDelay is RetryInfo.retry_delay; zero when the gateway gave none.
	RetryDelay time.Duration
	// FieldViolations are BadRequest's field violations.
	FieldViolations []FieldViolation
	// Status is the original status.
	Status *status.Status
}

func (e *GatewayError) Error() string {
	text := e.Code.String()
	if e.Reason != "" {
		text += " (" + e.Reason + ")"
	}
	text += ": " + e.Message
	if e.RetryDelay > 0 {
		text += fmt.Sprintf(" [retry after %s]", e.RetryDelay)
	}
	return text
}

// GRPCStatus lets status.FromError and status.Code see the original status.
func (e *GatewayError) GRPCStatus() *status.Status { return e.Status }

// ErrorReason is Reason as the generated enum (ErrorReason_ERROR_REASON_UNSPECIFIED when
// unknown).
func (e *GatewayError) ErrorReason() gatewayv1.ErrorReason {
	return gatewayv1.ErrorReason(gatewayv1.ErrorReason_value["ERROR_REASON_"+e.Reason])
}

// ApprovalID is the approval an error names (ErrorInfo metadata "approval_id"): the action a
// [policy] rule held for a bot owner's approval (APPROVAL_PENDING: follow it with
// Client.WaitApproval, do not retry the call), or the approval of an APPROVAL_NOT_FOUND or
// APPROVAL_DECIDED error. Empty for any other error.
func (e *GatewayError) ApprovalID() string {
	switch e.Reason {
	case "APPROVAL_PENDING", "APPROVAL_NOT_FOUND", "APPROVAL_DECIDED":
		return e.Metadata["approval_id"]
	}
	return ""
}

// IsApprovalPending reports whether the call was held for a bot owner's approval
// (FAILED_PRECONDITION, APPROVAL_PENDING); ApprovalID names the approval.
func (e *GatewayError) IsApprovalPending() bool { return e.Reason == "APPROVAL_PENDING" }

// IsPolicyDenied reports whether a [policy] rule refused the call for its requester
// (PERMISSION_DENIED, POLICY_DENIED; metadata "rule", "action", "role", "allowed_roles").
func (e *GatewayError) IsPolicyDenied() bool { return e.Reason == "POLICY_DENIED" }

// IsNotSupportedByImplementation reports whether the account's OneBot implementation has no such
// action (Unimplemented, NOT_SUPPORTED_BY_IMPLEMENTATION; metadata implementation, action):
// nothing was sent, and a retry will not help.
func (e *GatewayError) IsNotSupportedByImplementation() bool {
	return e.Reason == "NOT_SUPPORTED_BY_IMPLEMENTATION"
}

// IsBotNotAdmin reports whether the bot lacks the group role the action needs
// (FailedPrecondition, BOT_NOT_ADMIN; metadata group_id, bot_role, needed_role).
func (e *GatewayError) IsBotNotAdmin() bool { return e.Reason == "BOT_NOT_ADMIN" }

// IsProtectedMember reports whether a moderation targeted the group's owner or the bot itself
// (PermissionDenied, PROTECTED_MEMBER; metadata user_id, why).
func (e *GatewayError) IsProtectedMember() bool { return e.Reason == "PROTECTED_MEMBER" }

// IsNotLeader reports whether a standby gateway refused the call because another gateway leads
// the account (Unavailable, NOT_LEADER, under [ha]; metadata account_id, leader, advertise):
// nothing was done, so a retry is safe. The Client retries these by itself for unary calls (see
// Options.NotLeaderRetryBudget); this is the last refusal when the budget or the context ran out.
func (e *GatewayError) IsNotLeader() bool {
	return e.Code == codes.Unavailable && e.Reason == "NOT_LEADER"
}

// Leader is the instance name of the account's leader a NOT_LEADER refusal names (metadata
// "leader"), when the standby knows it; empty otherwise.
func (e *GatewayError) Leader() string {
	if !e.IsNotLeader() {
		return ""
	}
	return e.Metadata["leader"]
}

// Advertise is the leader's advertised host:port a NOT_LEADER refusal names (metadata
// "advertise"), when the leader gave one; empty otherwise.
func (e *GatewayError) Advertise() string {
	if !e.IsNotLeader() {
		return ""
	}
	return e.Metadata["advertise"]
}

// IsNotLeader reports whether err is (or wraps) a NOT_LEADER refusal: a *GatewayError, or a
// plain gRPC status error from the generated clients.
func IsNotLeader(err error) bool {
	if err == nil {
		return false
	}
	if e, ok := AsGatewayError(err); ok {
		return e.IsNotLeader()
	}
	if s, ok := status.FromError(err); ok {
		return FromStatus(s).IsNotLeader()
	}
	return false
}

// FromStatus decodes a status and its details.
func FromStatus(s *status.Status) *GatewayError {
	e := &GatewayError{Code: s.Code(), Message: s.Message(), Metadata: map[string]string{}, Status: s}
	for _, d := range s.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			e.Reason = d.GetReason()
			e.Domain = d.GetDomain()
			for k, v := range d.GetMetadata() {
				e.Metadata[k] = v
			}
		case *errdetails.RetryInfo:
			e.RetryDelay = d.GetRetryDelay().AsDuration()
		case *errdetails.BadRequest:
			for _, v := range d.GetFieldViolations() {
				e.FieldViolations = append(e.FieldViolations, FieldViolation{Field: v.GetField(), Description: v.GetDescription()})
			}
		}
	}
	return e
}

// AsGatewayError returns err's *GatewayError, if it is or wraps one.
func AsGatewayError(err error) (*GatewayError, bool) {
	var e *GatewayError
	ok := errors.As(err, &e)
	return e, ok
}

// wrap turns a gRPC error into a *GatewayError (nil stays nil).
func wrap(err error) error {
	if err == nil {
		return nil
	}
	if s, ok := status.FromError(err); ok {
		return FromStatus(s)
	}
	return err
}

// ClientError is a failure found on this side, before a call or after one: bad arguments, a
// send the gateway would refuse (checked before anything is uploaded), an integrity mismatch,
// a local file that cannot be read or written (Err: the os error, so errors.Is(err,
// fs.ErrNotExist) still works). Every error the client returns is a *GatewayError or a
// *ClientError (see AsClientError).
type ClientError struct {
	// Reason is the ErrorReason name the gateway would answer with (e.g. "TOO_MANY_IMAGES")
	// when the check is one of the gateway's own; empty otherwise.
	Reason string
	// Field is the argument at fault, when one is (e.g. "Images").
	Field string
	// Message says what is wrong.
	Message string
	// Err is the underlying error (a file system error), if any.
	Err error
}

func (e *ClientError) Error() string {
	if e.Reason != "" {
		return e.Message + " (" + e.Reason + ")"
	}
	return e.Message
}

// Unwrap returns the underlying error.
func (e *ClientError) Unwrap() error { return e.Err }

// AsClientError returns err's *ClientError, if it is or wraps one.
func AsClientError(err error) (*ClientError, bool) {
	var e *ClientError
	ok := errors.As(err, &e)
	return e, ok
}

// clientErr is a *ClientError with a formatted message.
func clientErr(format string, args ...any) *ClientError {
	return &ClientError{Message: fmt.Sprintf(format, args...)}
}

// localErr is the *ClientError of a failed file system operation.
func localErr(err error) error {
	if err == nil {
		return nil
	}
	return &ClientError{Message: err.Error(), Err: err}
}
