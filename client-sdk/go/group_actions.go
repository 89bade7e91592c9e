package onebotgateway

// Group actions: reactions, essence, typing, group files (the downloads are in download.go) and
// moderation. Moderation is refused unless a [[policy.rules]] entry names the action
// (PermissionDenied, POLICY_DENIED, metadata rule = none: IsPolicyDenied); the bot must be a
// group admin (IsBotNotAdmin), and the owner and the bot are never targets (IsProtectedMember).

import (
	"context"
	"io"
	"time"

	gatewayv1 "github.com/onebot-gateway/onebot-gateway/client-sdk/go/onebot/gateway/v1"
)

// Limits of the group actions, checked before any call.
const (
	// MaxMute is the longest mute of MuteMember (30 days, the platform's limit).
	MaxMute = 30 * 24 * time.Hour
	// MaxEmojiIDBytes is the longest emoji id of React, in bytes.
	MaxEmojiIDBytes = 32
	// MaxCardBytes is the longest group card of SetMemberCard, in bytes of UTF-8.
	MaxCardBytes = 60
)

// React adds the emoji reaction emojiID (a QQ face id such as "76", 赞, or a Unicode emoji's
// code point in decimal such as "128077", 👍) to a group message.
func (c *Client) React(ctx context.Context, messageID int64, emojiID string) (*gatewayv1.ReactToMessageResponse, error) {
	return c.ReactFor(ctx, messageID, emojiID, false, nil)
}

// Unreact removes the bot's reaction emojiID from a group message.
func (c *Client) Unreact(ctx context.Context, messageID int64, emojiID string) (*gatewayv1.ReactToMessageResponse, error) {
	return c.ReactFor(ctx, messageID, emojiID, true, nil)
}

// ReactFor adds (or with remove, removes) a reaction on behalf of a QQ user (OnBehalfOfMessage,
// OnBehalfOfUser; nil: nobody): the gateway's [policy] rules decide by that user's role.
func (c *Client) ReactFor(ctx context.Context, messageID int64, emojiID string, remove bool, onBehalfOf *gatewayv1.OnBehalfOf) (*gatewayv1.ReactToMessageResponse, error) {
	if messageID <= 0 {
		return nil, refused("INVALID_REQUEST", "MessageID", "the message id must be positive, got %d", messageID)
	}
	if n := len(emojiID); n == 0 || n > MaxEmojiIDBytes {
		return nil, refused("INVALID_REQUEST", "EmojiID", "the emoji id must be 1 to %d bytes, got %q", MaxEmojiIDBytes, emojiID)
	}
	r, err := c.Messages.ReactToMessage(ctx, &gatewayv1.ReactToMessageRequest{
		AccountId: c.accountID, MessageId: messageID, EmojiId: emojiID, Remove: remove, OnBehalfOf: onBehalfOf,
	})
	return r, wrap(err)
}

// SetEssence marks a group message as essence (精华); the bot must be a group admin.
func (c *Client) SetEssence(ctx context.Context, messageID int64) (*gatewayv1.SetEssenceResponse, error) {
	return c.SetEssenceFor(ctx, messageID, false, nil)
}

// RemoveEssence unmarks an essence message.
func (c *Client) RemoveEssence(ctx context.Context, messageID int64) (*gatewayv1.SetEssenceResponse, error) {
	return c.SetEssenceFor(ctx, messageID, true, nil)
}

// SetEssenceFor marks (or with remove, unmarks) an essence message on behalf of a QQ user.
func (c *Client) SetEssenceFor(ctx context.Context, messageID int64, remove bool, onBehalfOf *gatewayv1.OnBehalfOf) (*gatewayv1.SetEssenceResponse, error) {
	if messageID <= 0 {
		return nil, refused("INVALID_REQUEST", "MessageID", "the message id must be positive, got %d", messageID)
	}
	r, err := c.Messages.SetEssence(ctx, &gatewayv1.SetEssenceRequest{
		AccountId: c.accountID, MessageId: messageID, Remove: remove, OnBehalfOf: onBehalfOf,
	})
	return r, wrap(err)
}

// EssencePages iterates over the pages of a group's essence messages (see ListEssence).
type EssencePages struct {
	client *Client
	ctx    context.Context
	req    *gatewayv1.ListEssenceRequest
	done   bool
}

// Next returns the next page; io.EOF after the last one.
func (p *EssencePages) Next() (*gatewayv1.ListEssenceResponse, error) {
	if p.done {
		return nil, io.EOF
	}
	page, err := p.client.Messages.ListEssence(p.ctx, p.req)
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

// All returns every remaining essence message, fetching every page.
func (p *EssencePages) All() ([]*gatewayv1.EssenceMessage, error) {
	var all []*gatewayv1.EssenceMessage
	for {
		page, err := p.Next()
		if err == io.EOF {
			return all, nil
		}
		if err != nil {
			return all, err
		}
		all = append(all, page.GetMessages()...)
	}
}

// ListEssence lists a group's essence messages (精华; GroupId nil: the account's only
// whitelisted group; PageSize 1..50, 0 = 20), newest marking first, one page at a time by Next
// (or every page by All). An empty AccountId means the client's account; req is used (and its
// PageToken advanced) by the iterator.
func (c *Client) ListEssence(ctx context.Context, req *gatewayv1.ListEssenceRequest) *EssencePages {
	if req.GetAccountId() == "" {
		req.AccountId = c.accountID
	}
	return &EssencePages{client: c, ctx: ctx, req: req}
}

// SetTyping shows "正在输入" (typing) to userID in their private chat, for example while the
// model thinks; the user must be in the private whitelist (USER_NOT_ALLOWED), and
// implementations without the action answer NOT_SUPPORTED_BY_IMPLEMENTATION
// (IsNotSupportedByImplementation).
func (c *Client) SetTyping(ctx context.Context, userID int64) error {
	return c.SetTypingFor(ctx, userID, nil)
}

// SetTypingFor shows typing on behalf of a QQ user.
func (c *Client) SetTypingFor(ctx context.Context, userID int64, onBehalfOf *gatewayv1.OnBehalfOf) error {
	if userID <= 0 {
		return refused("INVALID_REQUEST", "UserID", "the user id must be positive, got %d", userID)
	}
	_, err := c.Messages.SetTyping(ctx, &gatewayv1.SetTypingRequest{
		AccountId: c.accountID, UserId: userID, OnBehalfOf: onBehalfOf,
	})
	return wrap(err)
}

// GroupFilePages iterates over the pages of a group files folder (see ListGroupFiles).
type GroupFilePages struct {
	client *Client
	ctx    context.Context
	req    *gatewayv1.ListGroupFilesRequest
	done   bool
}

// Next returns the next page (its folders, then its files); io.EOF after the last one.
func (p *GroupFilePages) Next() (*gatewayv1.ListGroupFilesResponse, error) {
	if p.done {
		return nil, io.EOF
	}
	page, err := p.client.Groups.ListGroupFiles(p.ctx, p.req)
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

// All returns every remaining folder and file of the folder, fetching every page.
func (p *GroupFilePages) All() ([]*gatewayv1.GroupFolder, []*gatewayv1.GroupFile, error) {
	var folders []*gatewayv1.GroupFolder
	var files []*gatewayv1.GroupFile
	for {
		page, err := p.Next()
		if err == io.EOF {
			return folders, files, nil
		}
		if err != nil {
			return folders, files, err
		}
		folders = append(folders, page.GetFolders()...)
		files = append(files, page.GetFiles()...)
	}
}

// ListGroupFiles lists one folder of a group's files (群文件; FolderId "" = the root; GroupId
// nil: the account's only whitelisted group; PageSize 1..200, 0 = 50): its folders, then its
// files, one page at a time by Next (or every page by All). An empty AccountId means the
// client's account; req is used (and its PageToken advanced) by the iterator.
func (c *Client) ListGroupFiles(ctx context.Context, req *gatewayv1.ListGroupFilesRequest) *GroupFilePages {
	if req.GetAccountId() == "" {
		req.AccountId = c.accountID
	}
	return &GroupFilePages{client: c, ctx: ctx, req: req}
}

// muteSeconds is a mute's length in whole seconds (a part second rounds up: 0 would lift it).
func muteSeconds(d time.Duration) (int64, error) {
	if d < 0 || d > MaxMute {
		return 0, refused("INVALID_REQUEST", "Duration", "a mute lasts 0 to 30 days, not %s", d)
	}
	return int64((d + time.Second - 1) / time.Second), nil
}

// MuteMember mutes (禁言) userID for d (whole seconds, at most MaxMute; 0 lifts the mute) in
// groupID (nil: the account's only whitelisted group).
func (c *Client) MuteMember(ctx context.Context, groupID *int64, userID int64, d time.Duration) (*gatewayv1.MuteMemberResponse, error) {
	return c.MuteMemberFor(ctx, groupID, userID, d, nil)
}

// MuteMemberFor mutes a member on behalf of a QQ user (OnBehalfOfMessage, OnBehalfOfUser; nil:
// nobody): the gateway's [policy] rules decide by that user's role.
func (c *Client) MuteMemberFor(ctx context.Context, groupID *int64, userID int64, d time.Duration, onBehalfOf *gatewayv1.OnBehalfOf) (*gatewayv1.MuteMemberResponse, error) {
	secs, err := muteSeconds(d)
	if err != nil {
		return nil, err
	}
	if userID <= 0 {
		return nil, refused("INVALID_REQUEST", "UserID", "the user id must be positive, got %d", userID)
	}
	r, err := c.Groups.MuteMember(ctx, &gatewayv1.MuteMemberRequest{
		AccountId: c.accountID, GroupId: groupID, UserId: userID, DurationSecs: secs, OnBehalfOf: onBehalfOf,
	})
	return r, wrap(err)
}

// MuteAll turns the whole-group mute (全员禁言) on or off.
func (c *Client) MuteAll(ctx context.Context, groupID *int64, enable bool) (*gatewayv1.MuteAllResponse, error) {
	return c.MuteAllFor(ctx, groupID, enable, nil)
}

// MuteAllFor turns the whole-group mute on or off on behalf of a QQ user.
func (c *Client) MuteAllFor(ctx context.Context, groupID *int64, enable bool, onBehalfOf *gatewayv1.OnBehalfOf) (*gatewayv1.MuteAllResponse, error) {
	r, err := c.Groups.MuteAll(ctx, &gatewayv1.MuteAllRequest{
		AccountId: c.accountID, GroupId: groupID, Enable: enable, OnBehalfOf: onBehalfOf,
	})
	return r, wrap(err)
}

// KickMember removes (踢出) userID from the group; rejectRejoin refuses their later join requests.
func (c *Client) KickMember(ctx context.Context, groupID *int64, userID int64, rejectRejoin bool) (*gatewayv1.KickMemberResponse, error) {
	return c.KickMemberFor(ctx, groupID, userID, rejectRejoin, nil)
}

// KickMemberFor removes a member on behalf of a QQ user.
func (c *Client) KickMemberFor(ctx context.Context, groupID *int64, userID int64, rejectRejoin bool, onBehalfOf *gatewayv1.OnBehalfOf) (*gatewayv1.KickMemberResponse, error) {
	if userID <= 0 {
		return nil, refused("INVALID_REQUEST", "UserID", "the user id must be positive, got %d", userID)
	}
	r, err := c.Groups.KickMember(ctx, &gatewayv1.KickMemberRequest{
		AccountId: c.accountID, GroupId: groupID, UserId: userID, RejectRejoin: rejectRejoin, OnBehalfOf: onBehalfOf,
	})
	return r, wrap(err)
}

// SetMemberCard sets a member's group card (群名片, at most MaxCardBytes); "" clears it.
func (c *Client) SetMemberCard(ctx context.Context, groupID *int64, userID int64, card string) (*gatewayv1.SetMemberCardResponse, error) {
	return c.SetMemberCardFor(ctx, groupID, userID, card, nil)
}

// SetMemberCardFor sets a member's card on behalf of a QQ user.
func (c *Client) SetMemberCardFor(ctx context.Context, groupID *int64, userID int64, card string, onBehalfOf *gatewayv1.OnBehalfOf) (*gatewayv1.SetMemberCardResponse, error) {
	if userID <= 0 {
		return nil, refused("INVALID_REQUEST", "UserID", "the user id must be positive, got %d", userID)
	}
	if n := len(card); n > MaxCardBytes {
		return nil, refused("INVALID_REQUEST", "Card", "the card is %d bytes; at most %d", n, MaxCardBytes)
	}
	r, err := c.Groups.SetMemberCard(ctx, &gatewayv1.SetMemberCardRequest{
		AccountId: c.accountID, GroupId: groupID, UserId: userID, Card: card, OnBehalfOf: onBehalfOf,
	})
	return r, wrap(err)
}
