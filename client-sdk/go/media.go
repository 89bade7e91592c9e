package onebotgateway

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	gatewayv1 "github.com/onebot-gateway/onebot-gateway/client-sdk/go/onebot/gateway/v1"
)

// ChunkSize is the size of the chunks Upload streams.
const ChunkSize = 256 * 1024

// Uploaded is what an upload staged on the gateway.
type Uploaded struct {
	MediaID  string
	Size     int64
	SHA256   string
	MimeType string
	Response *gatewayv1.UploadMediaResponse
}

// Media is one image, video or file of a Message.
type Media struct {
	path, url, mediaID, serverPath string
	data                           []byte
	fileName                       string
	isData                         bool
}

// Path is a local file, uploaded before sending.
func Path(path string) Media { return Media{path: path} }

// Data is bytes in memory, uploaded before sending.
func Data(data []byte, fileName string) Media {
	return Media{data: data, fileName: fileName, isData: true}
}

// URL is an http(s) URL the gateway fetches.
func URL(url string) Media { return Media{url: url} }

// MediaID is a media id from an earlier upload.
func MediaID(id string) Media { return Media{mediaID: id} }

// ServerPath is an absolute path on the gateway host (under its media_roots).
func ServerPath(path string) Media { return Media{serverPath: path} }

// Message is what Send sends.
type Message struct {
	// GroupID is the target group; nil (and no UserID) means the account's only whitelisted group.
	GroupID *int64
	// UserID is a private chat (the other side's QQ number) instead of a group.
	UserID *int64
	Text   string
	Images []Media
	Videos []Media
	// Voices is up to 1 voice message (语音: MP3, WAV, OGG, AMR or SILK), uploaded with kind
	// MEDIA_KIND_RECORD and sent as its own message after the text and other media.
	Voices   []Media
	File     *Media
	FileName string
	// ReplyTo quotes (replies to) this message id in the first message.
	ReplyTo *int64
	// Mentions are QQ numbers (at most 20) mentioned in the first message.
	Mentions []int64
	// MentionAll mentions everyone (@全体成员; the bot must be a group admin).
	MentionAll     bool
	IdempotencyKey string
	// OnBehalfOf is the QQ user the message is sent for (OnBehalfOfMessage, OnBehalfOfUser):
	// the gateway's [policy] rules decide by their role in the chat. nil: nobody.
	OnBehalfOf *gatewayv1.OnBehalfOf
}

// UploadOptions tunes Upload.
type UploadOptions struct {
	// FileName overrides the name reported to the gateway (default: the path's base name).
	FileName string
	// Progress, when set, is called with the bytes sent so far and the total after each chunk.
	Progress func(sent, total int64)
}

// UploadFile streams a local file to the gateway (see Upload).
func (c *Client) UploadFile(ctx context.Context, path string, kind gatewayv1.MediaKind, opts UploadOptions) (*Uploaded, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, localErr(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, localErr(err)
	}
	if !info.Mode().IsRegular() {
		return nil, clientErr("%s is not a regular file", path)
	}
	if opts.FileName == "" {
		opts.FileName = filepath.Base(path)
	}
	return c.Upload(ctx, f, info.Size(), kind, opts)
}

// UploadBytes uploads bytes in memory (see Upload).
func (c *Client) UploadBytes(ctx context.Context, data []byte, kind gatewayv1.MediaKind, opts UploadOptions) (*Uploaded, error) {
	return c.Upload(ctx, bytes.NewReader(data), int64(len(data)), kind, opts)
}

// Upload streams size bytes from r to the gateway's staging area in ChunkSize chunks and
// returns the media id. The content is hashed while it streams and checked against the
// gateway's digest.
func (c *Client) Upload(ctx context.Context, r io.Reader, size int64, kind gatewayv1.MediaKind, opts UploadOptions) (*Uploaded, error) {
	stream, err := c.Media.UploadMedia(ctx)
	if err != nil {
		return nil, wrap(err)
	}
	header := &gatewayv1.UploadMediaRequest{Payload: &gatewayv1.UploadMediaRequest_Header{Header: &gatewayv1.UploadMediaHeader{
		AccountId: c.accountID, Kind: kind, FileName: opts.FileName, Size: &size,
	}}}
	if err := stream.Send(header); err != nil && !errors.Is(err, io.EOF) {
		return nil, wrap(err)
	}
	hash := sha256.New()
	var sent int64
	buf := make([]byte, ChunkSize)
	for {
		n, readErr := io.ReadFull(r, buf)
		if n > 0 {
			hash.Write(buf[:n])
			sent += int64(n)
			chunk := &gatewayv1.UploadMediaRequest{Payload: &gatewayv1.UploadMediaRequest_Chunk{Chunk: buf[:n]}}
			if err := stream.Send(chunk); err != nil {
				// io.EOF: the gateway ended the call; CloseAndRecv returns its status.
				if errors.Is(err, io.EOF) {
					break
				}
				return nil, wrap(err)
			}
			if opts.Progress != nil {
				opts.Progress(sent, size)
			}
		}
		if errors.Is(readErr, io.EOF) || errors.Is(readErr, io.ErrUnexpectedEOF) {
			break
		}
		if readErr != nil {
			_, _ = stream.CloseAndRecv()
			return nil, localErr(readErr)
		}
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return nil, wrap(err)
	}
	digest := hex.EncodeToString(hash.Sum(nil))
	if resp.GetSha256() != digest || resp.GetSize() != sent {
		return nil, clientErr("upload integrity check failed: sent %d bytes sha256 %s, gateway stored %d bytes sha256 %s",
			sent, digest, resp.GetSize(), resp.GetSha256())
	}
	return &Uploaded{MediaID: resp.GetMediaId(), Size: sent, SHA256: digest, MimeType: resp.GetMimeType(), Response: resp}, nil
}

func (c *Client) source(ctx context.Context, m Media, kind gatewayv1.MediaKind) (*gatewayv1.MediaSource, error) {
	switch {
	case m.isData:
		u, err := c.UploadBytes(ctx, m.data, kind, UploadOptions{FileName: m.fileName})
		if err != nil {
			return nil, err
		}
		return &gatewayv1.MediaSource{Source: &gatewayv1.MediaSource_MediaId{MediaId: u.MediaID}}, nil
	case m.path != "":
		if strings.HasPrefix(m.path, "http://") || strings.HasPrefix(m.path, "https://") {
			return &gatewayv1.MediaSource{Source: &gatewayv1.MediaSource_Url{Url: m.path}}, nil
		}
		u, err := c.UploadFile(ctx, m.path, kind, UploadOptions{})
		if err != nil {
			return nil, err
		}
		return &gatewayv1.MediaSource{Source: &gatewayv1.MediaSource_MediaId{MediaId: u.MediaID}}, nil
	case m.url != "":
		return &gatewayv1.MediaSource{Source: &gatewayv1.MediaSource_Url{Url: m.url}}, nil
	case m.mediaID != "":
		return &gatewayv1.MediaSource{Source: &gatewayv1.MediaSource_MediaId{MediaId: m.mediaID}}, nil
	case m.serverPath != "":
		return &gatewayv1.MediaSource{Source: &gatewayv1.MediaSource_Path{Path: m.serverPath}}, nil
	}
	return nil, clientErr("empty media source: use Path, Data, URL, MediaID or ServerPath")
}

// Send checks the message against the gateway's limits (MaxImages, MaxVideos, MaxVoices, MaxTextChars,
// MaxMentions, ...) and that its local files exist (a *ClientError with the gateway's reason,
// before anything is uploaded), uploads its local media (in order), then sends it with
// SendMessage. The response's RateLimitWait (GetRateLimitWait().AsDuration()) is how long the
// gateway's rate limits held it back.
func (c *Client) Send(ctx context.Context, m Message) (*gatewayv1.SendMessageResponse, error) {
	if err := checkSend(m); err != nil {
		return nil, err
	}
	req := &gatewayv1.SendMessageRequest{
		AccountId: c.accountID, GroupId: m.GroupID, UserId: m.UserID, Text: m.Text,
		FileName: m.FileName, IdempotencyKey: m.IdempotencyKey,
		ReplyToMessageId: m.ReplyTo, MentionUserIds: m.Mentions, MentionAll: m.MentionAll,
		OnBehalfOf: m.OnBehalfOf,
	}
	for _, img := range m.Images {
		s, err := c.source(ctx, img, gatewayv1.MediaKind_MEDIA_KIND_IMAGE)
		if err != nil {
			return nil, err
		}
		req.Images = append(req.Images, s)
	}
	for _, v := range m.Videos {
		s, err := c.source(ctx, v, gatewayv1.MediaKind_MEDIA_KIND_VIDEO)
		if err != nil {
			return nil, err
		}
		req.Videos = append(req.Videos, s)
	}
	for _, v := range m.Voices {
		s, err := c.source(ctx, v, gatewayv1.MediaKind_MEDIA_KIND_RECORD)
		if err != nil {
			return nil, err
		}
		req.Voices = append(req.Voices, s)
	}
	if m.File != nil {
		s, err := c.source(ctx, *m.File, gatewayv1.MediaKind_MEDIA_KIND_FILE)
		if err != nil {
			return nil, err
		}
		req.File = s
	}
	r, err := c.Messages.SendMessage(ctx, req)
	return r, wrap(err)
}
