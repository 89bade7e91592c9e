package onebotgateway_test

// End-to-end tests of the agent helpers and the checks before a send, against the real gateway
// (scripts/sdk-tests.sh sets ONEBOT_GATEWAY_ADDR and ONEBOT_GATEWAY_SANDBOX_URL).

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strconv"
	"testing"

	"google.golang.org/grpc/status"

	onebotgateway "github.com/onebot-gateway/onebot-gateway/client-sdk/go"
	gatewayv1 "github.com/onebot-gateway/onebot-gateway/client-sdk/go/onebot/gateway/v1"
)

// inject makes a sandbox user say something (the sandbox's own HTTP action); the message id.
func inject(t *testing.T, groupID int64, message ...map[string]any) int64 {
	t.Helper()
	url := os.Getenv("ONEBOT_GATEWAY_SANDBOX_URL")
	if url == "" {
		t.Fatal("ONEBOT_GATEWAY_SANDBOX_URL is not set: run ./scripts/sdk-tests.sh go")
	}
	params := map[string]any{"user_id": 10001, "message": message}
	if groupID != 0 {
		params["group_id"] = groupID
	}
	body, _ := json.Marshal(params)
	response, err := http.Post(url+"/sandbox_inject_message", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer response.Body.Close()
	var answer struct {
		Status string `json:"status"`
		Data   struct {
			MessageID int64 `json:"message_id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(response.Body).Decode(&answer); err != nil || answer.Status != "ok" {
		t.Fatalf("inject: %v %+v", err, answer)
	}
	return answer.Data.MessageID
}

func atQQ(qq string) map[string]any {
	return map[string]any{"type": "at", "data": map[string]any{"qq": qq}}
}

func textSeg(s string) map[string]any {
	return map[string]any{"type": "text", "data": map[string]any{"text": s}}
}

func eventOf(ctx context.Context, t *testing.T, client *onebotgateway.Client, messageID int64) *gatewayv1.Event {
	t.Helper()
	zero := uint64(0)
	stream, err := client.StreamEvents(ctx, &gatewayv1.StreamEventsRequest{
		Kinds: []gatewayv1.EventKind{gatewayv1.EventKind_EVENT_KIND_MESSAGE}, AfterSequence: &zero,
	})
	if err != nil {
		t.Fatal(err)
	}
	for {
		event, err := stream.Next()
		if err != nil {
			t.Fatal(err)
		}
		if event.GetMessage().GetMessage().GetMessageId() == messageID {
			return event
		}
	}
}

func TestLimitsAreCheckedBeforeUploading(t *testing.T) {
	client, ctx := connect(t)
	latest := func() int64 {
		page, err := client.History(ctx, onebotgateway.GroupChat(playground), 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		return page.GetMessages()[len(page.GetMessages())-1].GetMessageId()
	}
	before := latest()
	refused, err := exampleLimits(ctx, client, os.Getenv("ONEBOT_GATEWAY_TEST_IMAGE"))
	if err != nil || refused.Reason != "TOO_MANY_IMAGES" || refused.Field != "Images" {
		t.Fatalf("limits: %v %v", refused, err)
	}
	// The same request past the SDK's check is what the gateway refuses, for the same reason.
	images := []*gatewayv1.MediaSource{}
	for range 5 {
		images = append(images, &gatewayv1.MediaSource{Source: &gatewayv1.MediaSource_MediaId{MediaId: "m"}})
	}
	group := playground
	_, err = client.Messages.SendMessage(ctx, &gatewayv1.SendMessageRequest{GroupId: &group, Images: images})
	if onebotgateway.FromStatus(status.Convert(err)).Reason != refused.Reason {
		t.Fatalf("the gateway's refusal: %v", err)
	}
	if latest() != before {
		t.Fatal("something was sent")
	}
}

func TestAgentAnswersAMentionInItsChat(t *testing.T) {
	client, ctx := connect(t)
	accounts, err := client.ListAccounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bot := ""
	for _, a := range accounts {
		if a.GetAccountId() == "default" {
			bot = strconv.FormatInt(a.GetSelfId(), 10)
		}
	}
	inject(t, playground, atQQ("all"), textSeg(" 全体注意"))
	inject(t, playground, atQQ("10002"), textSeg(" 不是叫你"))
	asked := inject(t, playground, atQQ(bot), textSeg(" 在吗"))
	zero := uint64(0)
	answer, err := exampleAgent(ctx, client, &zero)
	if err != nil || answer.GetGroupId() != playground {
		t.Fatalf("agent: %v %v", answer, err)
	}
	reply, err := client.GetMessage(ctx, answer.GetMessageIds()[0])
	if err != nil {
		t.Fatal(err)
	}
	if reply.GetMessage().GetSegments()[0].GetReply().GetId() != strconv.FormatInt(asked, 10) || reply.GetMessage().GetText() != "在的" {
		t.Fatalf("reply: %v", reply)
	}
	// A private message is answered privately, quoting it.
	private := inject(t, 0, atQQ(bot), textSeg(" 私聊"))
	event := eventOf(ctx, t, client, private)
	if !onebotgateway.MentionsMe(event, false) {
		t.Fatal("the private mention")
	}
	sent, err := client.Reply(ctx, event, onebotgateway.Message{Text: "私聊收到"})
	if err != nil || sent.GetGroupId() != 0 || sent.GetUserId() != 10001 {
		t.Fatalf("private reply: %v %v", sent, err)
	}
	answered, err := client.GetMessage(ctx, sent.GetMessageIds()[0])
	if err != nil || answered.GetMessage().GetSegments()[0].GetReply().GetId() != strconv.FormatInt(private, 10) {
		t.Fatalf("private quote: %v %v", answered, err)
	}
}

func TestMentionOfEveryoneCountsOnlyWhenAsked(t *testing.T) {
	client, ctx := connect(t)
	event := eventOf(ctx, t, client, inject(t, playground, atQQ("all"), textSeg(" 开会了")))
	if onebotgateway.MentionsMe(event, false) || !onebotgateway.MentionsMe(event, true) {
		t.Fatal("@全体成员")
	}
}
