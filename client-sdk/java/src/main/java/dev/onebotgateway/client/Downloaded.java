package dev.onebotgateway.client;

import dev.onebotgateway.v1.DownloadMediaHeader;

/**
 * A downloaded item in memory.
 *
 * @param header media id, kind, MIME type, size, SHA-256 and file name
 * @param data the bytes, checked against the header's size and SHA-256
 */
public record Downloaded(DownloadMediaHeader header, byte[] data) {}
