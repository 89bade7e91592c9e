package onebotgateway

import (
	"context"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	gatewayv1 "github.com/onebot-gateway/onebot-gateway/client-sdk/go/onebot/gateway/v1"
)

// The gateway's limits of one SendMessage, checked by Send before anything is uploaded.
const (
	// MaxTextChars is the longest text, in characters (Unicode code points).
	MaxTextChars = 20000
	// MaxImages is the most images of one send.
	MaxImages = 4
	// MaxVideos is the most videos of one send.
	MaxVideos = 1
	// MaxVoices is the most voice messages of one send.
	MaxVoices = 1
	// MaxMentions is the most mentions of one send (before duplicates are dropped).
	MaxMentions = 20
	// MaxIdempotencyKeyBytes is the longest IdempotencyKey, in bytes.
	MaxIdempotencyKeyBytes = 128
)

func refused(reason, field, format string, args ...any) *ClientError {
	return &ClientError{Reason: reason, Field: field, Message: fmt.Sprintf(format, args...)}
}

// checkSend refuses, with a *ClientError carrying the gateway's reason, a send the gateway would
// refuse for its form, and a local file that is not there: run before any media is uploaded, so
// a refused send uploads nothing.
func checkSend(m Message) error {
	if n := len(m.IdempotencyKey); n > MaxIdempotencyKeyBytes {
		return refused("INVALID_REQUEST", "IdempotencyKey", "IdempotencyKey is %d bytes; at most %d", n, MaxIdempotencyKeyBytes)
	}
	if m.GroupID != nil && m.UserID != nil {
		return refused("INVALID_REQUEST", "UserID", "give GroupID or UserID, not both: a message goes to one chat")
	}
	if m.GroupID != nil && *m.GroupID <= 0 {
		return refused("INVALID_REQUEST", "GroupID", "GroupID must be positive, got %d", *m.GroupID)
	}
	if m.UserID != nil && *m.UserID <= 0 {
		return refused("INVALID_REQUEST", "UserID", "UserID must be positive, got %d", *m.UserID)
	}
	hasLead := m.ReplyTo != nil || len(m.Mentions) > 0 || m.MentionAll
	if strings.TrimSpace(m.Text) == "" && len(m.Images) == 0 && len(m.Videos) == 0 && len(m.Voices) == 0 && m.File == nil && !hasLead {
		return refused("EMPTY_MESSAGE", "", "nothing to send: give text, images, videos, a voice, a file, a quote or mentions")
	}
	if n := utf8.RuneCountInString(m.Text); n > MaxTextChars {
		return refused("TEXT_TOO_LONG", "Text", "text is %d characters; at most %d", n, MaxTextChars)
	}
	if n := len(m.Images); n > MaxImages {
		return refused("TOO_MANY_IMAGES", "Images", "%d images; at most %d", n, MaxImages)
	}
	if n := len(m.Videos); n > MaxVideos {
		return refused("TOO_MANY_VIDEOS", "Videos", "%d videos; at most %d", n, MaxVideos)
	}
	if n := len(m.Voices); n > MaxVoices {
		return refused("INVALID_REQUEST", "Voices", "%d voices; at most %d", n, MaxVoices)
	}
	if m.ReplyTo != nil && *m.ReplyTo == 0 {
		return refused("INVALID_REQUEST", "ReplyTo", "ReplyTo must be a message id (not 0)")
	}
	if n := len(m.Mentions); n > MaxMentions {
		return refused("INVALID_REQUEST", "Mentions", "%d mentions; at most %d per message", n, MaxMentions)
	}
	for i, id := range m.Mentions {
		if id <= 0 {
			return refused("INVALID_REQUEST", fmt.Sprintf("Mentions[%d]", i), "Mentions[%d] must be a positive QQ number, got %d", i, id)
		}
	}
	media := make([]mediaField, 0, len(m.Images)+len(m.Videos)+len(m.Voices)+1)
	for i, item := range m.Images {
		media = append(media, mediaField{fmt.Sprintf("Images[%d]", i), item})
	}
	for i, item := range m.Videos {
		media = append(media, mediaField{fmt.Sprintf("Videos[%d]", i), item})
	}
	for i, item := range m.Voices {
		media = append(media, mediaField{fmt.Sprintf("Voices[%d]", i), item})
	}
	if m.File != nil {
		media = append(media, mediaField{"File", *m.File})
	}
	for _, x := range media {
		if err := checkMedia(x.item, x.field); err != nil {
			return err
		}
	}
	return nil
}

// mediaField is a media item of a Message and the field it is in.
type mediaField struct {
	field string
	item  Media
}

// checkMedia refuses an empty media item and a local path that is not a regular file.
func checkMedia(m Media, field string) error {
	switch {
	case m.isData, m.url != "", m.mediaID != "", m.serverPath != "":
		return nil
	case m.path == "":
		return &ClientError{Field: field, Message: field + ": empty media source: use Path, Data, URL, MediaID or ServerPath"}
	case strings.HasPrefix(m.path, "http://") || strings.HasPrefix(m.path, "https://"):
		return nil
	}
	info, err := os.Stat(m.path)
	if err != nil {
		return &ClientError{Field: field, Message: field + ": " + err.Error(), Err: err}
	}
	if !info.Mode().IsRegular() {
		return &ClientError{Field: field, Message: fmt.Sprintf("%s: %s is not a regular file", field, m.path)}
	}
	return nil
}

// MentionsMe reports whether a message event has an @ naming the bot: an at segment whose
// user id is the event's SelfId. @全体成员 counts only with includeAll (it addresses every
// member, not the bot). Any other event kind is not a mention.
func MentionsMe(event *gatewayv1.Event, includeAll bool) bool {
	message := event.GetMessage().GetMessage()
	if message == nil {
		return false
	}
	return MessageMentions(message, event.GetSelfId(), includeAll)
}

// MessageMentions reports whether a message (from history, search, GetMessage) has an @ naming
// selfID (the bot's QQ number: Account.SelfId); @全体成员 counts only with includeAll.
func MessageMentions(message *gatewayv1.ChatMessage, selfID int64, includeAll bool) bool {
	for _, segment := range message.GetSegments() {
		at := segment.GetAt()
		if at == nil {
			continue
		}
		if at.GetAll() {
			if includeAll {
				return true
			}
		} else if at.GetUserId() == selfID {
			return true
		}
	}
	return false
}

// OnBehalfOfMessage names the sender of messageID (a message of the action's chat) as the QQ
// user an action is done for; the gateway looks the message up, so this is the preferred form.
func OnBehalfOfMessage(messageID int64) *gatewayv1.OnBehalfOf {
	return &gatewayv1.OnBehalfOf{Requester: &gatewayv1.OnBehalfOf_MessageId{MessageId: messageID}}
}

// OnBehalfOfUser names the QQ user userID as the one an action is done for.
func OnBehalfOfUser(userID int64) *gatewayv1.OnBehalfOf {
	return &gatewayv1.OnBehalfOf{Requester: &gatewayv1.OnBehalfOf_UserId{UserId: userID}}
}

// ReplyFor is a reply to a received message, in one call: a Message to its chat (its group,
// else its private chat), quoting it, sent on behalf of its sender. Set Text (or media) and
// pass it to Send.
func ReplyFor(message *gatewayv1.ChatMessage) Message {
	var m Message
	switch chat := message.GetChat().GetKind().(type) {
	case *gatewayv1.Chat_GroupId:
		group := chat.GroupId
		m.GroupID = &group
	case *gatewayv1.Chat_UserId:
		user := chat.UserId
		m.UserID = &user
	}
	id := message.GetMessageId()
	m.ReplyTo = &id
	m.OnBehalfOf = OnBehalfOfMessage(id)
	return m
}

// Reply answers a message event in its own chat (its group, else its private chat), quoting
// it: m is sent there with ReplyTo set to the event's message. m must not name a chat or a
// quote of its own.
func (c *Client) Reply(ctx context.Context, event *gatewayv1.Event, m Message) (*gatewayv1.SendMessageResponse, error) {
	message := event.GetMessage().GetMessage()
	if message == nil {
		return nil, clientErr("event %d is not a message event", event.GetSequence())
	}
	return c.ReplyToMessage(ctx, message, true, m)
}

// ReplyToMessage answers a message (from an event, history, search, GetMessage) in its own
// chat, quoting it when quote is true.
func (c *Client) ReplyToMessage(ctx context.Context, message *gatewayv1.ChatMessage, quote bool, m Message) (*gatewayv1.SendMessageResponse, error) {
	if m.GroupID != nil || m.UserID != nil || m.ReplyTo != nil {
		return nil, &ClientError{Field: "Message", Message: "a reply goes to the message's own chat and quotes it: leave GroupID, UserID and ReplyTo unset"}
	}
	if quote {
		if message.GetMessageId() == 0 {
			return nil, clientErr("this message has no id to quote (a forwarded node): reply with quote false")
		}
		id := message.GetMessageId()
		m.ReplyTo = &id
	}
	switch chat := message.GetChat().GetKind().(type) {
	case *gatewayv1.Chat_GroupId:
		group := chat.GroupId
		m.GroupID = &group
	case *gatewayv1.Chat_UserId:
		user := chat.UserId
		m.UserID = &user
	default:
		return nil, clientErr("message %d has no chat to reply in", message.GetMessageId())
	}
	return c.Send(ctx, m)
}
