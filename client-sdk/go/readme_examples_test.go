package onebotgateway_test

// The README's examples, one function per RPC. Everything between a "// region: <name>" and
// "// endregion" line is copied verbatim into README.md (readme_test.go checks it) and run by
// e2e_test.go against a real gateway.

import (
	"context"
	"fmt"
	"os"

	onebotgateway "github.com/onebot-gateway/onebot-gateway/client-sdk/go"
)

func exampleConnect() (*onebotgateway.Client, error) {
	// region: connect
	addr := os.Getenv("ONEBOT_GATEWAY_ADDR")
	if addr == "" {
		addr = onebotgateway.DefaultAddress
	}
	client, err := onebotgateway.New(onebotgateway.Options{
		Address: addr,
		Token:   os.Getenv("ONEBOT_GATEWAY_TOKEN"), // sent as "authorization: Bearer <token>"
		// For TLS: an https:// address, plus CAFile: "ca.pem" for a private CA.
	})
	if err != nil {
		return nil, err
	}
	// endregion
	return client, nil
}

func exampleHealth(ctx context.Context, client *onebotgateway.Client) (string, error) {
	// region: health
	status, err := client.CheckHealth(ctx, "") // or "onebot.gateway.v1.account.default"
	if err != nil {
		return "", err
	}
	fmt.Println("gateway:", status) // SERVING
	// endregion
	return status, nil
}

func exampleAccounts(ctx context.Context, client *onebotgateway.Client) ([]string, error) {
	// region: accounts
	accounts, err := client.ListAccounts(ctx)
	if err != nil {
		return nil, err
	}
	for _, a := range accounts {
		fmt.Println(a.GetAccountId(), a.GetNickname(), a.GetGroups())
	}
	// endregion
	ids := []string{}
	for _, a := range accounts {
		ids = append(ids, a.GetAccountId())
	}
	return ids, nil
}
