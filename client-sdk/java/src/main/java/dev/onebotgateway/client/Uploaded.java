package dev.onebotgateway.client;

import dev.onebotgateway.v1.UploadMediaResponse;

/**
 * What an upload staged on the gateway.
 *
 * @param mediaId id for {@code MediaSource.media_id}
 * @param size size in bytes
 * @param sha256 SHA-256 of the content, lowercase hex (checked against the bytes sent)
 * @param mimeType MIME type the gateway detected
 * @param response the full response
 */
public record Uploaded(
    String mediaId, long size, String sha256, String mimeType, UploadMediaResponse response) {}
