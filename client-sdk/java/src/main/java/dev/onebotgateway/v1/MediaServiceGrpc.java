package dev.onebotgateway.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * Stages media bytes streamed by the client, for use in SendMessage.
 * The gateway, not the client, bridges bytes to the OneBot host, so no shared
 * file system with the peer is needed.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class MediaServiceGrpc {

  private MediaServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "onebot.gateway.v1.MediaService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.UploadMediaRequest,
      dev.onebotgateway.v1.UploadMediaResponse> getUploadMediaMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "UploadMedia",
      requestType = dev.onebotgateway.v1.UploadMediaRequest.class,
      responseType = dev.onebotgateway.v1.UploadMediaResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.CLIENT_STREAMING)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.UploadMediaRequest,
      dev.onebotgateway.v1.UploadMediaResponse> getUploadMediaMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.UploadMediaRequest, dev.onebotgateway.v1.UploadMediaResponse> getUploadMediaMethod;
    if ((getUploadMediaMethod = MediaServiceGrpc.getUploadMediaMethod) == null) {
      synchronized (MediaServiceGrpc.class) {
        if ((getUploadMediaMethod = MediaServiceGrpc.getUploadMediaMethod) == null) {
          MediaServiceGrpc.getUploadMediaMethod = getUploadMediaMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.UploadMediaRequest, dev.onebotgateway.v1.UploadMediaResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.CLIENT_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "UploadMedia"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.UploadMediaRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.UploadMediaResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MediaServiceMethodDescriptorSupplier("UploadMedia"))
              .build();
        }
      }
    }
    return getUploadMediaMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.DownloadMediaRequest,
      dev.onebotgateway.v1.DownloadMediaResponse> getDownloadMediaMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DownloadMedia",
      requestType = dev.onebotgateway.v1.DownloadMediaRequest.class,
      responseType = dev.onebotgateway.v1.DownloadMediaResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.DownloadMediaRequest,
      dev.onebotgateway.v1.DownloadMediaResponse> getDownloadMediaMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.DownloadMediaRequest, dev.onebotgateway.v1.DownloadMediaResponse> getDownloadMediaMethod;
    if ((getDownloadMediaMethod = MediaServiceGrpc.getDownloadMediaMethod) == null) {
      synchronized (MediaServiceGrpc.class) {
        if ((getDownloadMediaMethod = MediaServiceGrpc.getDownloadMediaMethod) == null) {
          MediaServiceGrpc.getDownloadMediaMethod = getDownloadMediaMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.DownloadMediaRequest, dev.onebotgateway.v1.DownloadMediaResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DownloadMedia"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.DownloadMediaRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.DownloadMediaResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MediaServiceMethodDescriptorSupplier("DownloadMedia"))
              .build();
        }
      }
    }
    return getDownloadMediaMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.DownloadGroupFileRequest,
      dev.onebotgateway.v1.DownloadGroupFileResponse> getDownloadGroupFileMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DownloadGroupFile",
      requestType = dev.onebotgateway.v1.DownloadGroupFileRequest.class,
      responseType = dev.onebotgateway.v1.DownloadGroupFileResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.DownloadGroupFileRequest,
      dev.onebotgateway.v1.DownloadGroupFileResponse> getDownloadGroupFileMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.DownloadGroupFileRequest, dev.onebotgateway.v1.DownloadGroupFileResponse> getDownloadGroupFileMethod;
    if ((getDownloadGroupFileMethod = MediaServiceGrpc.getDownloadGroupFileMethod) == null) {
      synchronized (MediaServiceGrpc.class) {
        if ((getDownloadGroupFileMethod = MediaServiceGrpc.getDownloadGroupFileMethod) == null) {
          MediaServiceGrpc.getDownloadGroupFileMethod = getDownloadGroupFileMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.DownloadGroupFileRequest, dev.onebotgateway.v1.DownloadGroupFileResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DownloadGroupFile"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.DownloadGroupFileRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.DownloadGroupFileResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MediaServiceMethodDescriptorSupplier("DownloadGroupFile"))
              .build();
        }
      }
    }
    return getDownloadGroupFileMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static MediaServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<MediaServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<MediaServiceStub>() {
        @java.lang.Override
        public MediaServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new MediaServiceStub(channel, callOptions);
        }
      };
    return MediaServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static MediaServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<MediaServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<MediaServiceBlockingV2Stub>() {
        @java.lang.Override
        public MediaServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new MediaServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return MediaServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static MediaServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<MediaServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<MediaServiceBlockingStub>() {
        @java.lang.Override
        public MediaServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new MediaServiceBlockingStub(channel, callOptions);
        }
      };
    return MediaServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static MediaServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<MediaServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<MediaServiceFutureStub>() {
        @java.lang.Override
        public MediaServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new MediaServiceFutureStub(channel, callOptions);
        }
      };
    return MediaServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * Stages media bytes streamed by the client, for use in SendMessage.
   * The gateway, not the client, bridges bytes to the OneBot host, so no shared
   * file system with the peer is needed.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * Streams one media item to the gateway's staging area and returns its id.
     * The first message must be a `header`; every later one a `chunk` of any
     * size. Bytes are written to disk as they arrive (never held whole in
     * memory) and hashed on the fly. The content is checked by its magic
     * numbers, not its name. Staged media expire after a TTL (30 minutes by
     * default) and are usable only by the account (and token) that uploaded
     * them.
     * Errors: INVALID_ARGUMENT (UPLOAD_HEADER_MISSING, UPLOAD_HEADER_REPEATED,
     * MEDIA_SIZE_MISMATCH, MEDIA_CHECKSUM_MISMATCH, MEDIA_TYPE_MISMATCH,
     * INVALID_REQUEST), RESOURCE_EXHAUSTED (MEDIA_TOO_LARGE as soon as the
     * stream passes the kind's limit, or the header declares a larger size;
     * STAGING_QUOTA_EXCEEDED), FAILED_PRECONDITION (ACCOUNT_NOT_CONFIGURED),
     * CANCELLED when the client cancels (nothing is left behind).
     * </pre>
     */
    default io.grpc.stub.StreamObserver<dev.onebotgateway.v1.UploadMediaRequest> uploadMedia(
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.UploadMediaResponse> responseObserver) {
      return io.grpc.stub.ServerCalls.asyncUnimplementedStreamingCall(getUploadMediaMethod(), responseObserver);
    }

    /**
     * <pre>
     * Streams one media item from the gateway: a received image, voice
     * record, video or file (by the `media_id` of its segment, or by message
     * id and segment index), or the bytes of an UploadMedia id.
     * The first response is a `header` (size, SHA-256, the MIME type sniffed
     * from the bytes, never taken from the peer's HTTP headers), then `chunk`s
     * of at most 256 KiB in order, UploadMedia in reverse. The whole download
     * is bounded by the media limits of its kind (`media.image_max_bytes`,
     * `video_max_bytes`, `file_max_bytes`; voice records use the file limit).
     * Received media are captured on receipt (`[media.capture]`: images and
     * voice records of whitelisted chats by default), so they outlive the
     * peer's expiring URLs; a download of an item whose capture is still
     * running waits for it, within the call's deadline. Anything else is
     * fetched when first asked for, in the order that works for the
     * implementation: the segment's own URL (hosts in `media.peer_url_hosts`
     * only, through the same address guard as `MediaSource.url`), then the
     * implementation's own actions (`get_image` / `get_record` / `get_file`,
     * NapCat and SnowLuma stream downloads), then a freshly signed URL (the
     * message read again; NapCat's rkey). What was fetched is kept like a
     * capture. A voice record comes as the implementation's converted audio
     * where it can convert (NapCat, SnowLuma, LLOneBot: MP3; the header's
     * `mime_type` and `file_name` say which), else as it was received (SILK
     * or AMR).
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: no target, a negative index,
     * a segment that is not media), NOT_FOUND (MEDIA_NOT_FOUND: an id that
     * never existed, a message the peer no longer has, an index past the
     * message's segments, a capture that expired or was evicted, saying so),
     * FAILED_PRECONDITION (MEDIA_TRANSFER_FAILED with the peer's text: no way
     * to get the bytes worked; ACCOUNT_NOT_CONFIGURED), RESOURCE_EXHAUSTED
     * (MEDIA_TOO_LARGE), PERMISSION_DENIED (TOKEN_SCOPE for a chat outside
     * the token's scope), DEADLINE_EXCEEDED, UNAVAILABLE (ACCOUNT_OFFLINE).
     * A client that cancels mid-stream leaves nothing behind.
     * </pre>
     */
    default void downloadMedia(dev.onebotgateway.v1.DownloadMediaRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.DownloadMediaResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDownloadMediaMethod(), responseObserver);
    }

    /**
     * <pre>
     * Streams a file of a group's files (a `GroupFile.file_id` of
     * GroupService.ListGroupFiles), as DownloadMedia streams media: a header
     * (kind FILE, the sniffed MIME type, the file's name), then chunks. The
     * gateway asks the peer for the file's URL (`get_group_file_url`; Milky
     * `get_group_file_download_url`) and fetches it through the same guard
     * as peer media, bounded by `media.file_max_bytes`.
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: an empty file_id;
     * GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED, TOKEN_SCOPE),
     * NOT_FOUND (GROUP_NOT_FOUND; MEDIA_NOT_FOUND for a file the peer does
     * not have), RESOURCE_EXHAUSTED (MEDIA_TOO_LARGE), FAILED_PRECONDITION
     * (MEDIA_TRANSFER_FAILED), UNAVAILABLE (ACCOUNT_OFFLINE).
     * </pre>
     */
    default void downloadGroupFile(dev.onebotgateway.v1.DownloadGroupFileRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.DownloadGroupFileResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDownloadGroupFileMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service MediaService.
   * <pre>
   * Stages media bytes streamed by the client, for use in SendMessage.
   * The gateway, not the client, bridges bytes to the OneBot host, so no shared
   * file system with the peer is needed.
   * </pre>
   */
  public static abstract class MediaServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return MediaServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service MediaService.
   * <pre>
   * Stages media bytes streamed by the client, for use in SendMessage.
   * The gateway, not the client, bridges bytes to the OneBot host, so no shared
   * file system with the peer is needed.
   * </pre>
   */
  public static final class MediaServiceStub
      extends io.grpc.stub.AbstractAsyncStub<MediaServiceStub> {
    private MediaServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected MediaServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new MediaServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Streams one media item to the gateway's staging area and returns its id.
     * The first message must be a `header`; every later one a `chunk` of any
     * size. Bytes are written to disk as they arrive (never held whole in
     * memory) and hashed on the fly. The content is checked by its magic
     * numbers, not its name. Staged media expire after a TTL (30 minutes by
     * default) and are usable only by the account (and token) that uploaded
     * them.
     * Errors: INVALID_ARGUMENT (UPLOAD_HEADER_MISSING, UPLOAD_HEADER_REPEATED,
     * MEDIA_SIZE_MISMATCH, MEDIA_CHECKSUM_MISMATCH, MEDIA_TYPE_MISMATCH,
     * INVALID_REQUEST), RESOURCE_EXHAUSTED (MEDIA_TOO_LARGE as soon as the
     * stream passes the kind's limit, or the header declares a larger size;
     * STAGING_QUOTA_EXCEEDED), FAILED_PRECONDITION (ACCOUNT_NOT_CONFIGURED),
     * CANCELLED when the client cancels (nothing is left behind).
     * </pre>
     */
    public io.grpc.stub.StreamObserver<dev.onebotgateway.v1.UploadMediaRequest> uploadMedia(
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.UploadMediaResponse> responseObserver) {
      return io.grpc.stub.ClientCalls.asyncClientStreamingCall(
          getChannel().newCall(getUploadMediaMethod(), getCallOptions()), responseObserver);
    }

    /**
     * <pre>
     * Streams one media item from the gateway: a received image, voice
     * record, video or file (by the `media_id` of its segment, or by message
     * id and segment index), or the bytes of an UploadMedia id.
     * The first response is a `header` (size, SHA-256, the MIME type sniffed
     * from the bytes, never taken from the peer's HTTP headers), then `chunk`s
     * of at most 256 KiB in order, UploadMedia in reverse. The whole download
     * is bounded by the media limits of its kind (`media.image_max_bytes`,
     * `video_max_bytes`, `file_max_bytes`; voice records use the file limit).
     * Received media are captured on receipt (`[media.capture]`: images and
     * voice records of whitelisted chats by default), so they outlive the
     * peer's expiring URLs; a download of an item whose capture is still
     * running waits for it, within the call's deadline. Anything else is
     * fetched when first asked for, in the order that works for the
     * implementation: the segment's own URL (hosts in `media.peer_url_hosts`
     * only, through the same address guard as `MediaSource.url`), then the
     * implementation's own actions (`get_image` / `get_record` / `get_file`,
     * NapCat and SnowLuma stream downloads), then a freshly signed URL (the
     * message read again; NapCat's rkey). What was fetched is kept like a
     * capture. A voice record comes as the implementation's converted audio
     * where it can convert (NapCat, SnowLuma, LLOneBot: MP3; the header's
     * `mime_type` and `file_name` say which), else as it was received (SILK
     * or AMR).
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: no target, a negative index,
     * a segment that is not media), NOT_FOUND (MEDIA_NOT_FOUND: an id that
     * never existed, a message the peer no longer has, an index past the
     * message's segments, a capture that expired or was evicted, saying so),
     * FAILED_PRECONDITION (MEDIA_TRANSFER_FAILED with the peer's text: no way
     * to get the bytes worked; ACCOUNT_NOT_CONFIGURED), RESOURCE_EXHAUSTED
     * (MEDIA_TOO_LARGE), PERMISSION_DENIED (TOKEN_SCOPE for a chat outside
     * the token's scope), DEADLINE_EXCEEDED, UNAVAILABLE (ACCOUNT_OFFLINE).
     * A client that cancels mid-stream leaves nothing behind.
     * </pre>
     */
    public void downloadMedia(dev.onebotgateway.v1.DownloadMediaRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.DownloadMediaResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getDownloadMediaMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Streams a file of a group's files (a `GroupFile.file_id` of
     * GroupService.ListGroupFiles), as DownloadMedia streams media: a header
     * (kind FILE, the sniffed MIME type, the file's name), then chunks. The
     * gateway asks the peer for the file's URL (`get_group_file_url`; Milky
     * `get_group_file_download_url`) and fetches it through the same guard
     * as peer media, bounded by `media.file_max_bytes`.
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: an empty file_id;
     * GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED, TOKEN_SCOPE),
     * NOT_FOUND (GROUP_NOT_FOUND; MEDIA_NOT_FOUND for a file the peer does
     * not have), RESOURCE_EXHAUSTED (MEDIA_TOO_LARGE), FAILED_PRECONDITION
     * (MEDIA_TRANSFER_FAILED), UNAVAILABLE (ACCOUNT_OFFLINE).
     * </pre>
     */
    public void downloadGroupFile(dev.onebotgateway.v1.DownloadGroupFileRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.DownloadGroupFileResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getDownloadGroupFileMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service MediaService.
   * <pre>
   * Stages media bytes streamed by the client, for use in SendMessage.
   * The gateway, not the client, bridges bytes to the OneBot host, so no shared
   * file system with the peer is needed.
   * </pre>
   */
  public static final class MediaServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<MediaServiceBlockingV2Stub> {
    private MediaServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected MediaServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new MediaServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * Streams one media item to the gateway's staging area and returns its id.
     * The first message must be a `header`; every later one a `chunk` of any
     * size. Bytes are written to disk as they arrive (never held whole in
     * memory) and hashed on the fly. The content is checked by its magic
     * numbers, not its name. Staged media expire after a TTL (30 minutes by
     * default) and are usable only by the account (and token) that uploaded
     * them.
     * Errors: INVALID_ARGUMENT (UPLOAD_HEADER_MISSING, UPLOAD_HEADER_REPEATED,
     * MEDIA_SIZE_MISMATCH, MEDIA_CHECKSUM_MISMATCH, MEDIA_TYPE_MISMATCH,
     * INVALID_REQUEST), RESOURCE_EXHAUSTED (MEDIA_TOO_LARGE as soon as the
     * stream passes the kind's limit, or the header declares a larger size;
     * STAGING_QUOTA_EXCEEDED), FAILED_PRECONDITION (ACCOUNT_NOT_CONFIGURED),
     * CANCELLED when the client cancels (nothing is left behind).
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<dev.onebotgateway.v1.UploadMediaRequest, dev.onebotgateway.v1.UploadMediaResponse>
        uploadMedia() {
      return io.grpc.stub.ClientCalls.blockingClientStreamingCall(
          getChannel(), getUploadMediaMethod(), getCallOptions());
    }

    /**
     * <pre>
     * Streams one media item from the gateway: a received image, voice
     * record, video or file (by the `media_id` of its segment, or by message
     * id and segment index), or the bytes of an UploadMedia id.
     * The first response is a `header` (size, SHA-256, the MIME type sniffed
     * from the bytes, never taken from the peer's HTTP headers), then `chunk`s
     * of at most 256 KiB in order, UploadMedia in reverse. The whole download
     * is bounded by the media limits of its kind (`media.image_max_bytes`,
     * `video_max_bytes`, `file_max_bytes`; voice records use the file limit).
     * Received media are captured on receipt (`[media.capture]`: images and
     * voice records of whitelisted chats by default), so they outlive the
     * peer's expiring URLs; a download of an item whose capture is still
     * running waits for it, within the call's deadline. Anything else is
     * fetched when first asked for, in the order that works for the
     * implementation: the segment's own URL (hosts in `media.peer_url_hosts`
     * only, through the same address guard as `MediaSource.url`), then the
     * implementation's own actions (`get_image` / `get_record` / `get_file`,
     * NapCat and SnowLuma stream downloads), then a freshly signed URL (the
     * message read again; NapCat's rkey). What was fetched is kept like a
     * capture. A voice record comes as the implementation's converted audio
     * where it can convert (NapCat, SnowLuma, LLOneBot: MP3; the header's
     * `mime_type` and `file_name` say which), else as it was received (SILK
     * or AMR).
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: no target, a negative index,
     * a segment that is not media), NOT_FOUND (MEDIA_NOT_FOUND: an id that
     * never existed, a message the peer no longer has, an index past the
     * message's segments, a capture that expired or was evicted, saying so),
     * FAILED_PRECONDITION (MEDIA_TRANSFER_FAILED with the peer's text: no way
     * to get the bytes worked; ACCOUNT_NOT_CONFIGURED), RESOURCE_EXHAUSTED
     * (MEDIA_TOO_LARGE), PERMISSION_DENIED (TOKEN_SCOPE for a chat outside
     * the token's scope), DEADLINE_EXCEEDED, UNAVAILABLE (ACCOUNT_OFFLINE).
     * A client that cancels mid-stream leaves nothing behind.
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<?, dev.onebotgateway.v1.DownloadMediaResponse>
        downloadMedia(dev.onebotgateway.v1.DownloadMediaRequest request) {
      return io.grpc.stub.ClientCalls.blockingV2ServerStreamingCall(
          getChannel(), getDownloadMediaMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Streams a file of a group's files (a `GroupFile.file_id` of
     * GroupService.ListGroupFiles), as DownloadMedia streams media: a header
     * (kind FILE, the sniffed MIME type, the file's name), then chunks. The
     * gateway asks the peer for the file's URL (`get_group_file_url`; Milky
     * `get_group_file_download_url`) and fetches it through the same guard
     * as peer media, bounded by `media.file_max_bytes`.
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: an empty file_id;
     * GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED, TOKEN_SCOPE),
     * NOT_FOUND (GROUP_NOT_FOUND; MEDIA_NOT_FOUND for a file the peer does
     * not have), RESOURCE_EXHAUSTED (MEDIA_TOO_LARGE), FAILED_PRECONDITION
     * (MEDIA_TRANSFER_FAILED), UNAVAILABLE (ACCOUNT_OFFLINE).
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<?, dev.onebotgateway.v1.DownloadGroupFileResponse>
        downloadGroupFile(dev.onebotgateway.v1.DownloadGroupFileRequest request) {
      return io.grpc.stub.ClientCalls.blockingV2ServerStreamingCall(
          getChannel(), getDownloadGroupFileMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service MediaService.
   * <pre>
   * Stages media bytes streamed by the client, for use in SendMessage.
   * The gateway, not the client, bridges bytes to the OneBot host, so no shared
   * file system with the peer is needed.
   * </pre>
   */
  public static final class MediaServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<MediaServiceBlockingStub> {
    private MediaServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected MediaServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new MediaServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Streams one media item from the gateway: a received image, voice
     * record, video or file (by the `media_id` of its segment, or by message
     * id and segment index), or the bytes of an UploadMedia id.
     * The first response is a `header` (size, SHA-256, the MIME type sniffed
     * from the bytes, never taken from the peer's HTTP headers), then `chunk`s
     * of at most 256 KiB in order, UploadMedia in reverse. The whole download
     * is bounded by the media limits of its kind (`media.image_max_bytes`,
     * `video_max_bytes`, `file_max_bytes`; voice records use the file limit).
     * Received media are captured on receipt (`[media.capture]`: images and
     * voice records of whitelisted chats by default), so they outlive the
     * peer's expiring URLs; a download of an item whose capture is still
     * running waits for it, within the call's deadline. Anything else is
     * fetched when first asked for, in the order that works for the
     * implementation: the segment's own URL (hosts in `media.peer_url_hosts`
     * only, through the same address guard as `MediaSource.url`), then the
     * implementation's own actions (`get_image` / `get_record` / `get_file`,
     * NapCat and SnowLuma stream downloads), then a freshly signed URL (the
     * message read again; NapCat's rkey). What was fetched is kept like a
     * capture. A voice record comes as the implementation's converted audio
     * where it can convert (NapCat, SnowLuma, LLOneBot: MP3; the header's
     * `mime_type` and `file_name` say which), else as it was received (SILK
     * or AMR).
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: no target, a negative index,
     * a segment that is not media), NOT_FOUND (MEDIA_NOT_FOUND: an id that
     * never existed, a message the peer no longer has, an index past the
     * message's segments, a capture that expired or was evicted, saying so),
     * FAILED_PRECONDITION (MEDIA_TRANSFER_FAILED with the peer's text: no way
     * to get the bytes worked; ACCOUNT_NOT_CONFIGURED), RESOURCE_EXHAUSTED
     * (MEDIA_TOO_LARGE), PERMISSION_DENIED (TOKEN_SCOPE for a chat outside
     * the token's scope), DEADLINE_EXCEEDED, UNAVAILABLE (ACCOUNT_OFFLINE).
     * A client that cancels mid-stream leaves nothing behind.
     * </pre>
     */
    public java.util.Iterator<dev.onebotgateway.v1.DownloadMediaResponse> downloadMedia(
        dev.onebotgateway.v1.DownloadMediaRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getDownloadMediaMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Streams a file of a group's files (a `GroupFile.file_id` of
     * GroupService.ListGroupFiles), as DownloadMedia streams media: a header
     * (kind FILE, the sniffed MIME type, the file's name), then chunks. The
     * gateway asks the peer for the file's URL (`get_group_file_url`; Milky
     * `get_group_file_download_url`) and fetches it through the same guard
     * as peer media, bounded by `media.file_max_bytes`.
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: an empty file_id;
     * GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED, TOKEN_SCOPE),
     * NOT_FOUND (GROUP_NOT_FOUND; MEDIA_NOT_FOUND for a file the peer does
     * not have), RESOURCE_EXHAUSTED (MEDIA_TOO_LARGE), FAILED_PRECONDITION
     * (MEDIA_TRANSFER_FAILED), UNAVAILABLE (ACCOUNT_OFFLINE).
     * </pre>
     */
    public java.util.Iterator<dev.onebotgateway.v1.DownloadGroupFileResponse> downloadGroupFile(
        dev.onebotgateway.v1.DownloadGroupFileRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getDownloadGroupFileMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service MediaService.
   * <pre>
   * Stages media bytes streamed by the client, for use in SendMessage.
   * The gateway, not the client, bridges bytes to the OneBot host, so no shared
   * file system with the peer is needed.
   * </pre>
   */
  public static final class MediaServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<MediaServiceFutureStub> {
    private MediaServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected MediaServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new MediaServiceFutureStub(channel, callOptions);
    }
  }

  private static final int METHODID_DOWNLOAD_MEDIA = 0;
  private static final int METHODID_DOWNLOAD_GROUP_FILE = 1;
  private static final int METHODID_UPLOAD_MEDIA = 2;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final AsyncService serviceImpl;
    private final int methodId;

    MethodHandlers(AsyncService serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_DOWNLOAD_MEDIA:
          serviceImpl.downloadMedia((dev.onebotgateway.v1.DownloadMediaRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.DownloadMediaResponse>) responseObserver);
          break;
        case METHODID_DOWNLOAD_GROUP_FILE:
          serviceImpl.downloadGroupFile((dev.onebotgateway.v1.DownloadGroupFileRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.DownloadGroupFileResponse>) responseObserver);
          break;
        default:
          throw new AssertionError();
      }
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public io.grpc.stub.StreamObserver<Req> invoke(
        io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_UPLOAD_MEDIA:
          return (io.grpc.stub.StreamObserver<Req>) serviceImpl.uploadMedia(
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.UploadMediaResponse>) responseObserver);
        default:
          throw new AssertionError();
      }
    }
  }

  public static final io.grpc.ServerServiceDefinition bindService(AsyncService service) {
    return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
        .addMethod(
          getUploadMediaMethod(),
          io.grpc.stub.ServerCalls.asyncClientStreamingCall(
            new MethodHandlers<
              dev.onebotgateway.v1.UploadMediaRequest,
              dev.onebotgateway.v1.UploadMediaResponse>(
                service, METHODID_UPLOAD_MEDIA)))
        .addMethod(
          getDownloadMediaMethod(),
          io.grpc.stub.ServerCalls.asyncServerStreamingCall(
            new MethodHandlers<
              dev.onebotgateway.v1.DownloadMediaRequest,
              dev.onebotgateway.v1.DownloadMediaResponse>(
                service, METHODID_DOWNLOAD_MEDIA)))
        .addMethod(
          getDownloadGroupFileMethod(),
          io.grpc.stub.ServerCalls.asyncServerStreamingCall(
            new MethodHandlers<
              dev.onebotgateway.v1.DownloadGroupFileRequest,
              dev.onebotgateway.v1.DownloadGroupFileResponse>(
                service, METHODID_DOWNLOAD_GROUP_FILE)))
        .build();
  }

  private static abstract class MediaServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    MediaServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.onebotgateway.v1.MediaServiceOuterClass.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("MediaService");
    }
  }

  private static final class MediaServiceFileDescriptorSupplier
      extends MediaServiceBaseDescriptorSupplier {
    MediaServiceFileDescriptorSupplier() {}
  }

  private static final class MediaServiceMethodDescriptorSupplier
      extends MediaServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    MediaServiceMethodDescriptorSupplier(java.lang.String methodName) {
      this.methodName = methodName;
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.MethodDescriptor getMethodDescriptor() {
      return getServiceDescriptor().findMethodByName(methodName);
    }
  }

  private static volatile io.grpc.ServiceDescriptor serviceDescriptor;

  public static io.grpc.ServiceDescriptor getServiceDescriptor() {
    io.grpc.ServiceDescriptor result = serviceDescriptor;
    if (result == null) {
      synchronized (MediaServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new MediaServiceFileDescriptorSupplier())
              .addMethod(getUploadMediaMethod())
              .addMethod(getDownloadMediaMethod())
              .addMethod(getDownloadGroupFileMethod())
              .build();
        }
      }
    }
    return result;
  }
}
