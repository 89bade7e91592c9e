package onebotgateway

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"os"

	gatewayv1 "github.com/onebot-gateway/onebot-gateway/client-sdk/go/onebot/gateway/v1"
)

// MediaRef is what Download takes: a media id, or a segment of a message.
type MediaRef struct {
	mediaID      string
	messageID    int64
	segmentIndex int32
	byMessage    bool
}

// ByMediaID names a received segment's media id (or an UploadMedia id).
func ByMediaID(id string) MediaRef { return MediaRef{mediaID: id} }

// ByMessage names segment segmentIndex (0-based) of message messageID.
func ByMessage(messageID int64, segmentIndex int32) MediaRef {
	return MediaRef{messageID: messageID, segmentIndex: segmentIndex, byMessage: true}
}

// Downloaded is a downloaded item in memory.
type Downloaded struct {
	// Header has the media id, kind, MIME type, size, SHA-256 and file name.
	Header *gatewayv1.DownloadMediaHeader
	// Data are the bytes, checked against the header's size and SHA-256.
	Data []byte
}

// DownloadOptions tunes DownloadTo.
type DownloadOptions struct {
	// Progress, when set, is called with the bytes received so far and the total after each chunk.
	Progress func(received, total int64)
}

func (c *Client) downloadRequest(ref MediaRef) *gatewayv1.DownloadMediaRequest {
	req := &gatewayv1.DownloadMediaRequest{AccountId: c.accountID}
	if ref.byMessage {
		req.Target = &gatewayv1.DownloadMediaRequest_Message{Message: &gatewayv1.MessageMediaRef{
			MessageId: ref.messageID, SegmentIndex: ref.segmentIndex,
		}}
	} else {
		req.Target = &gatewayv1.DownloadMediaRequest_MediaId{MediaId: ref.mediaID}
	}
	return req
}

// DownloadToWriter streams a received (or uploaded) media item into w and returns its header
// once the size and SHA-256 it states are checked.
func (c *Client) DownloadToWriter(ctx context.Context, ref MediaRef, w io.Writer, opts DownloadOptions) (*gatewayv1.DownloadMediaHeader, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.Media.DownloadMedia(ctx, c.downloadRequest(ref))
	if err != nil {
		return nil, wrap(err)
	}
	return receive(stream.Recv, w, opts)
}

// downloadMessage is one message of a download stream (DownloadMedia, DownloadGroupFile): the
// header first, then chunks.
type downloadMessage interface {
	GetHeader() *gatewayv1.DownloadMediaHeader
	GetChunk() []byte
}

// receive reads a download stream into w and returns its header once the size and SHA-256 it
// states are checked.
func receive[M downloadMessage](recv func() (M, error), w io.Writer, opts DownloadOptions) (*gatewayv1.DownloadMediaHeader, error) {
	first, err := recv()
	if err != nil {
		return nil, wrap(err)
	}
	header := first.GetHeader()
	if header == nil {
		return nil, clientErr("the download stream did not start with a header")
	}
	var sum hash.Hash = sha256.New()
	var received int64
	for {
		msg, err := recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, wrap(err)
		}
		chunk := msg.GetChunk()
		if msg.GetHeader() != nil {
			return nil, clientErr("the download stream had a second header")
		}
		sum.Write(chunk)
		received += int64(len(chunk))
		if _, err := w.Write(chunk); err != nil {
			return nil, localErr(err)
		}
		if opts.Progress != nil {
			opts.Progress(received, header.GetSize())
		}
	}
	actual := hex.EncodeToString(sum.Sum(nil))
	if received != header.GetSize() || actual != header.GetSha256() {
		return nil, clientErr("download integrity check failed: header sha256 %s, received %d bytes sha256 %s",
			header.GetSha256(), received, actual)
	}
	return header, nil
}

// Download downloads a media item into memory (see DownloadToWriter).
func (c *Client) Download(ctx context.Context, ref MediaRef) (*Downloaded, error) {
	var buf bytes.Buffer
	header, err := c.DownloadToWriter(ctx, ref, &buf, DownloadOptions{})
	if err != nil {
		return nil, err
	}
	return &Downloaded{Header: header, Data: buf.Bytes()}, nil
}

// DownloadTo streams a media item into the file path: written as path+".part" and renamed once
// complete and checked, so a failed download leaves nothing behind.
func (c *Client) DownloadTo(ctx context.Context, ref MediaRef, path string, opts DownloadOptions) (*gatewayv1.DownloadMediaHeader, error) {
	return toFile(path, func(w io.Writer) (*gatewayv1.DownloadMediaHeader, error) {
		return c.DownloadToWriter(ctx, ref, w, opts)
	})
}

// toFile runs a download into path+".part" and renames it to path once complete and checked;
// a failed download leaves nothing behind.
func toFile(path string, download func(io.Writer) (*gatewayv1.DownloadMediaHeader, error)) (*gatewayv1.DownloadMediaHeader, error) {
	partial := path + ".part"
	f, err := os.Create(partial)
	if err != nil {
		return nil, localErr(err)
	}
	header, err := download(f)
	if closeErr := f.Close(); err == nil {
		err = localErr(closeErr)
	}
	if err == nil {
		err = localErr(os.Rename(partial, path))
	}
	if err != nil {
		_ = os.Remove(partial)
		return nil, err
	}
	return header, nil
}

// DownloadGroupFileToWriter streams a file of a group's files (a GroupFile.FileId of
// ListGroupFiles; groupID nil: the account's only whitelisted group) into w and returns its
// header (kind FILE, the file's name, an empty media id) once the size and SHA-256 it states are
// checked.
func (c *Client) DownloadGroupFileToWriter(ctx context.Context, groupID *int64, fileID string, w io.Writer, opts DownloadOptions) (*gatewayv1.DownloadMediaHeader, error) {
	if fileID == "" {
		return nil, refused("INVALID_REQUEST", "FileID", "the file id must not be empty")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.Media.DownloadGroupFile(ctx, &gatewayv1.DownloadGroupFileRequest{
		AccountId: c.accountID, GroupId: groupID, FileId: fileID,
	})
	if err != nil {
		return nil, wrap(err)
	}
	return receive(stream.Recv, w, opts)
}

// DownloadGroupFile downloads a group file into memory (see DownloadGroupFileToWriter).
func (c *Client) DownloadGroupFile(ctx context.Context, groupID *int64, fileID string) (*Downloaded, error) {
	var buf bytes.Buffer
	header, err := c.DownloadGroupFileToWriter(ctx, groupID, fileID, &buf, DownloadOptions{})
	if err != nil {
		return nil, err
	}
	return &Downloaded{Header: header, Data: buf.Bytes()}, nil
}

// DownloadGroupFileTo streams a group file into the file path as DownloadTo does.
func (c *Client) DownloadGroupFileTo(ctx context.Context, groupID *int64, fileID, path string, opts DownloadOptions) (*gatewayv1.DownloadMediaHeader, error) {
	return toFile(path, func(w io.Writer) (*gatewayv1.DownloadMediaHeader, error) {
		return c.DownloadGroupFileToWriter(ctx, groupID, fileID, w, opts)
	})
}
