package onebotgateway_test

// End-to-end: the Go SDK against a real gateway on its sandbox peer (scripts/sdk-tests.sh
// sets ONEBOT_GATEWAY_ADDR).

import (
	"context"
	"os"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	onebotgateway "github.com/onebot-gateway/onebot-gateway/client-sdk/go"
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

func TestAccounts(t *testing.T) {
	client, ctx := connect(t)
	ids, err := exampleAccounts(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("duplicate account %s", id)
		}
		seen[id] = true
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
