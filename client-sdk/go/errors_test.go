package onebotgateway_test

import (
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	onebotgateway "github.com/onebot-gateway/onebot-gateway/client-sdk/go"
	gatewayv1 "github.com/onebot-gateway/onebot-gateway/client-sdk/go/onebot/gateway/v1"
)

func TestFromStatusDecodesDetails(t *testing.T) {
	s, err := status.New(codes.Unavailable, "offline").WithDetails(
		&errdetails.ErrorInfo{Reason: "ACCOUNT_OFFLINE", Domain: onebotgateway.ErrorDomain, Metadata: map[string]string{"account_id": "a"}},
		&errdetails.RetryInfo{RetryDelay: durationpb.New(1500 * time.Millisecond)},
		&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "group_id", Description: "must be positive"}}},
	)
	if err != nil {
		t.Fatal(err)
	}
	e := onebotgateway.FromStatus(s)
	if e.Reason != "ACCOUNT_OFFLINE" || e.ErrorReason() != gatewayv1.ErrorReason_ERROR_REASON_ACCOUNT_OFFLINE {
		t.Fatalf("reason %q %v", e.Reason, e.ErrorReason())
	}
	if e.Metadata["account_id"] != "a" || e.RetryDelay != 1500*time.Millisecond {
		t.Fatalf("metadata %v delay %v", e.Metadata, e.RetryDelay)
	}
	if len(e.FieldViolations) != 1 || e.FieldViolations[0].Field != "group_id" {
		t.Fatalf("violations %v", e.FieldViolations)
	}
	if got := e.Error(); got != "Unavailable (ACCOUNT_OFFLINE): offline [retry after 1.5s]" {
		t.Fatalf("Error() = %q", got)
	}
	if status.Code(e) != codes.Unavailable {
		t.Fatal("status.Code does not see the code")
	}
	plain := onebotgateway.FromStatus(status.New(codes.Unimplemented, "nope"))
	if plain.Reason != "" || plain.ErrorReason() != gatewayv1.ErrorReason_ERROR_REASON_UNSPECIFIED {
		t.Fatalf("plain %v", plain)
	}
}

func TestSettingsAreChecked(t *testing.T) {
	if _, err := onebotgateway.New(onebotgateway.Options{Address: "http://127.0.0.1:1", CAFile: "ca.pem"}); err == nil {
		t.Fatal("CA file with a plaintext address was accepted")
	}
	if _, err := onebotgateway.New(onebotgateway.Options{Address: "https://127.0.0.1:1", CAFile: "/nonexistent/ca.pem"}); err == nil {
		t.Fatal("missing CA file was accepted")
	}
	if _, err := onebotgateway.New(onebotgateway.Options{Token: "line\nbreak"}); err == nil {
		t.Fatal("bad token was accepted")
	}
}
