package dev.onebotgateway.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * Reads message history and sends messages.
 * Every request names an `account_id` (empty means `default`): one of the
 * gateway's configured OneBot connections. An unknown account, or one with no
 * transport configured, fails with FAILED_PRECONDITION, reason
 * ACCOUNT_NOT_CONFIGURED, and no call is made to any peer.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class MessageServiceGrpc {

  private MessageServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "onebot.gateway.v1.MessageService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.GetHistoryRequest,
      dev.onebotgateway.v1.GetHistoryResponse> getGetHistoryMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetHistory",
      requestType = dev.onebotgateway.v1.GetHistoryRequest.class,
      responseType = dev.onebotgateway.v1.GetHistoryResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.GetHistoryRequest,
      dev.onebotgateway.v1.GetHistoryResponse> getGetHistoryMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.GetHistoryRequest, dev.onebotgateway.v1.GetHistoryResponse> getGetHistoryMethod;
    if ((getGetHistoryMethod = MessageServiceGrpc.getGetHistoryMethod) == null) {
      synchronized (MessageServiceGrpc.class) {
        if ((getGetHistoryMethod = MessageServiceGrpc.getGetHistoryMethod) == null) {
          MessageServiceGrpc.getGetHistoryMethod = getGetHistoryMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.GetHistoryRequest, dev.onebotgateway.v1.GetHistoryResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetHistory"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.GetHistoryRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.GetHistoryResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MessageServiceMethodDescriptorSupplier("GetHistory"))
              .build();
        }
      }
    }
    return getGetHistoryMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.SendMessageRequest,
      dev.onebotgateway.v1.SendMessageResponse> getSendMessageMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SendMessage",
      requestType = dev.onebotgateway.v1.SendMessageRequest.class,
      responseType = dev.onebotgateway.v1.SendMessageResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.SendMessageRequest,
      dev.onebotgateway.v1.SendMessageResponse> getSendMessageMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.SendMessageRequest, dev.onebotgateway.v1.SendMessageResponse> getSendMessageMethod;
    if ((getSendMessageMethod = MessageServiceGrpc.getSendMessageMethod) == null) {
      synchronized (MessageServiceGrpc.class) {
        if ((getSendMessageMethod = MessageServiceGrpc.getSendMessageMethod) == null) {
          MessageServiceGrpc.getSendMessageMethod = getSendMessageMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.SendMessageRequest, dev.onebotgateway.v1.SendMessageResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SendMessage"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.SendMessageRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.SendMessageResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MessageServiceMethodDescriptorSupplier("SendMessage"))
              .build();
        }
      }
    }
    return getSendMessageMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.GetMessageRequest,
      dev.onebotgateway.v1.GetMessageResponse> getGetMessageMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetMessage",
      requestType = dev.onebotgateway.v1.GetMessageRequest.class,
      responseType = dev.onebotgateway.v1.GetMessageResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.GetMessageRequest,
      dev.onebotgateway.v1.GetMessageResponse> getGetMessageMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.GetMessageRequest, dev.onebotgateway.v1.GetMessageResponse> getGetMessageMethod;
    if ((getGetMessageMethod = MessageServiceGrpc.getGetMessageMethod) == null) {
      synchronized (MessageServiceGrpc.class) {
        if ((getGetMessageMethod = MessageServiceGrpc.getGetMessageMethod) == null) {
          MessageServiceGrpc.getGetMessageMethod = getGetMessageMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.GetMessageRequest, dev.onebotgateway.v1.GetMessageResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetMessage"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.GetMessageRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.GetMessageResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MessageServiceMethodDescriptorSupplier("GetMessage"))
              .build();
        }
      }
    }
    return getGetMessageMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.RecallMessageRequest,
      dev.onebotgateway.v1.RecallMessageResponse> getRecallMessageMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RecallMessage",
      requestType = dev.onebotgateway.v1.RecallMessageRequest.class,
      responseType = dev.onebotgateway.v1.RecallMessageResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.RecallMessageRequest,
      dev.onebotgateway.v1.RecallMessageResponse> getRecallMessageMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.RecallMessageRequest, dev.onebotgateway.v1.RecallMessageResponse> getRecallMessageMethod;
    if ((getRecallMessageMethod = MessageServiceGrpc.getRecallMessageMethod) == null) {
      synchronized (MessageServiceGrpc.class) {
        if ((getRecallMessageMethod = MessageServiceGrpc.getRecallMessageMethod) == null) {
          MessageServiceGrpc.getRecallMessageMethod = getRecallMessageMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.RecallMessageRequest, dev.onebotgateway.v1.RecallMessageResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RecallMessage"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.RecallMessageRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.RecallMessageResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MessageServiceMethodDescriptorSupplier("RecallMessage"))
              .build();
        }
      }
    }
    return getRecallMessageMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.GetForwardMessagesRequest,
      dev.onebotgateway.v1.GetForwardMessagesResponse> getGetForwardMessagesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetForwardMessages",
      requestType = dev.onebotgateway.v1.GetForwardMessagesRequest.class,
      responseType = dev.onebotgateway.v1.GetForwardMessagesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.GetForwardMessagesRequest,
      dev.onebotgateway.v1.GetForwardMessagesResponse> getGetForwardMessagesMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.GetForwardMessagesRequest, dev.onebotgateway.v1.GetForwardMessagesResponse> getGetForwardMessagesMethod;
    if ((getGetForwardMessagesMethod = MessageServiceGrpc.getGetForwardMessagesMethod) == null) {
      synchronized (MessageServiceGrpc.class) {
        if ((getGetForwardMessagesMethod = MessageServiceGrpc.getGetForwardMessagesMethod) == null) {
          MessageServiceGrpc.getGetForwardMessagesMethod = getGetForwardMessagesMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.GetForwardMessagesRequest, dev.onebotgateway.v1.GetForwardMessagesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetForwardMessages"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.GetForwardMessagesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.GetForwardMessagesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MessageServiceMethodDescriptorSupplier("GetForwardMessages"))
              .build();
        }
      }
    }
    return getGetForwardMessagesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.SearchMessagesRequest,
      dev.onebotgateway.v1.SearchMessagesResponse> getSearchMessagesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SearchMessages",
      requestType = dev.onebotgateway.v1.SearchMessagesRequest.class,
      responseType = dev.onebotgateway.v1.SearchMessagesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.SearchMessagesRequest,
      dev.onebotgateway.v1.SearchMessagesResponse> getSearchMessagesMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.SearchMessagesRequest, dev.onebotgateway.v1.SearchMessagesResponse> getSearchMessagesMethod;
    if ((getSearchMessagesMethod = MessageServiceGrpc.getSearchMessagesMethod) == null) {
      synchronized (MessageServiceGrpc.class) {
        if ((getSearchMessagesMethod = MessageServiceGrpc.getSearchMessagesMethod) == null) {
          MessageServiceGrpc.getSearchMessagesMethod = getSearchMessagesMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.SearchMessagesRequest, dev.onebotgateway.v1.SearchMessagesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SearchMessages"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.SearchMessagesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.SearchMessagesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MessageServiceMethodDescriptorSupplier("SearchMessages"))
              .build();
        }
      }
    }
    return getSearchMessagesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.ReactToMessageRequest,
      dev.onebotgateway.v1.ReactToMessageResponse> getReactToMessageMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ReactToMessage",
      requestType = dev.onebotgateway.v1.ReactToMessageRequest.class,
      responseType = dev.onebotgateway.v1.ReactToMessageResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.ReactToMessageRequest,
      dev.onebotgateway.v1.ReactToMessageResponse> getReactToMessageMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.ReactToMessageRequest, dev.onebotgateway.v1.ReactToMessageResponse> getReactToMessageMethod;
    if ((getReactToMessageMethod = MessageServiceGrpc.getReactToMessageMethod) == null) {
      synchronized (MessageServiceGrpc.class) {
        if ((getReactToMessageMethod = MessageServiceGrpc.getReactToMessageMethod) == null) {
          MessageServiceGrpc.getReactToMessageMethod = getReactToMessageMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.ReactToMessageRequest, dev.onebotgateway.v1.ReactToMessageResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ReactToMessage"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.ReactToMessageRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.ReactToMessageResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MessageServiceMethodDescriptorSupplier("ReactToMessage"))
              .build();
        }
      }
    }
    return getReactToMessageMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.SetEssenceRequest,
      dev.onebotgateway.v1.SetEssenceResponse> getSetEssenceMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SetEssence",
      requestType = dev.onebotgateway.v1.SetEssenceRequest.class,
      responseType = dev.onebotgateway.v1.SetEssenceResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.SetEssenceRequest,
      dev.onebotgateway.v1.SetEssenceResponse> getSetEssenceMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.SetEssenceRequest, dev.onebotgateway.v1.SetEssenceResponse> getSetEssenceMethod;
    if ((getSetEssenceMethod = MessageServiceGrpc.getSetEssenceMethod) == null) {
      synchronized (MessageServiceGrpc.class) {
        if ((getSetEssenceMethod = MessageServiceGrpc.getSetEssenceMethod) == null) {
          MessageServiceGrpc.getSetEssenceMethod = getSetEssenceMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.SetEssenceRequest, dev.onebotgateway.v1.SetEssenceResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SetEssence"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.SetEssenceRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.SetEssenceResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MessageServiceMethodDescriptorSupplier("SetEssence"))
              .build();
        }
      }
    }
    return getSetEssenceMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.ListEssenceRequest,
      dev.onebotgateway.v1.ListEssenceResponse> getListEssenceMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListEssence",
      requestType = dev.onebotgateway.v1.ListEssenceRequest.class,
      responseType = dev.onebotgateway.v1.ListEssenceResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.ListEssenceRequest,
      dev.onebotgateway.v1.ListEssenceResponse> getListEssenceMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.ListEssenceRequest, dev.onebotgateway.v1.ListEssenceResponse> getListEssenceMethod;
    if ((getListEssenceMethod = MessageServiceGrpc.getListEssenceMethod) == null) {
      synchronized (MessageServiceGrpc.class) {
        if ((getListEssenceMethod = MessageServiceGrpc.getListEssenceMethod) == null) {
          MessageServiceGrpc.getListEssenceMethod = getListEssenceMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.ListEssenceRequest, dev.onebotgateway.v1.ListEssenceResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListEssence"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.ListEssenceRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.ListEssenceResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MessageServiceMethodDescriptorSupplier("ListEssence"))
              .build();
        }
      }
    }
    return getListEssenceMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.SetTypingRequest,
      dev.onebotgateway.v1.SetTypingResponse> getSetTypingMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SetTyping",
      requestType = dev.onebotgateway.v1.SetTypingRequest.class,
      responseType = dev.onebotgateway.v1.SetTypingResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.SetTypingRequest,
      dev.onebotgateway.v1.SetTypingResponse> getSetTypingMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.SetTypingRequest, dev.onebotgateway.v1.SetTypingResponse> getSetTypingMethod;
    if ((getSetTypingMethod = MessageServiceGrpc.getSetTypingMethod) == null) {
      synchronized (MessageServiceGrpc.class) {
        if ((getSetTypingMethod = MessageServiceGrpc.getSetTypingMethod) == null) {
          MessageServiceGrpc.getSetTypingMethod = getSetTypingMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.SetTypingRequest, dev.onebotgateway.v1.SetTypingResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SetTyping"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.SetTypingRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.SetTypingResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MessageServiceMethodDescriptorSupplier("SetTyping"))
              .build();
        }
      }
    }
    return getSetTypingMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static MessageServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<MessageServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<MessageServiceStub>() {
        @java.lang.Override
        public MessageServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new MessageServiceStub(channel, callOptions);
        }
      };
    return MessageServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static MessageServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<MessageServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<MessageServiceBlockingV2Stub>() {
        @java.lang.Override
        public MessageServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new MessageServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return MessageServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static MessageServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<MessageServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<MessageServiceBlockingStub>() {
        @java.lang.Override
        public MessageServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new MessageServiceBlockingStub(channel, callOptions);
        }
      };
    return MessageServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static MessageServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<MessageServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<MessageServiceFutureStub>() {
        @java.lang.Override
        public MessageServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new MessageServiceFutureStub(channel, callOptions);
        }
      };
    return MessageServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * Reads message history and sends messages.
   * Every request names an `account_id` (empty means `default`): one of the
   * gateway's configured OneBot connections. An unknown account, or one with no
   * transport configured, fails with FAILED_PRECONDITION, reason
   * ACCOUNT_NOT_CONFIGURED, and no call is made to any peer.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * Reads one page of a group or private chat's history, oldest first.
     * Pages from the newest message towards older ones: pass the response's
     * `next_anchor_message_id` as `anchor_message_id` to get the page before it.
     * The page never contains the anchor itself and has at most `count`
     * messages. An empty chat is an empty page, not an error.
     * Read-only and idempotent. Errors: INVALID_ARGUMENT (INVALID_REQUEST: no
     * chat or a non-positive id), NOT_FOUND (GROUP_NOT_FOUND: the bot is not in
     * the group, by the peer's group list), FAILED_PRECONDITION
     * (ACCOUNT_NOT_CONFIGURED, ONEBOT_AUTH_FAILED), UNAVAILABLE (ACCOUNT_OFFLINE,
     * ONEBOT_CONNECTION_LOST;
     * with RetryInfo), DEADLINE_EXCEEDED (ONEBOT_TIMEOUT), UNIMPLEMENTED
     * (HISTORY_UNSUPPORTED: e.g. go-cqhttp has no private history), and the
     * peer's own failures (ONEBOT_ACTION_FAILED with `retcode` and
     * `peer_message` metadata).
     * </pre>
     */
    default void getHistory(dev.onebotgateway.v1.GetHistoryRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.GetHistoryResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetHistoryMethod(), responseObserver);
    }

    /**
     * <pre>
     * Sends text, up to 4 images, 1 video and 1 file to a whitelisted group or
     * (with `user_id`) a whitelisted private chat, optionally quoting a message
     * and mentioning members.
     * Everything is validated and every media source resolved before the first
     * frame goes to the peer: a request is sent whole or refused whole. Order of
     * delivery: text (in chunks of at most `reply_chunk_size` characters), then
     * images, then the video, then the file. The quote and the mentions lead
     * the first message (a `reply` segment, then `at` segments, then the first
     * text chunk, else the first image or video; a message of their own before
     * a file, or when there is nothing else). While the account is offline a
     * text-only request is queued (durably, 50 entries / 30 minutes by default)
     * and the response says `queued`; requests with media are refused.
     * Idempotent when `idempotency_key` is set. Errors: INVALID_ARGUMENT
     * (EMPTY_MESSAGE, TEXT_TOO_LONG, TOO_MANY_IMAGES, TOO_MANY_VIDEOS,
     * GROUP_REQUIRED, MEDIA_TYPE_MISMATCH, INVALID_REQUEST), PERMISSION_DENIED
     * (GROUP_NOT_ALLOWED, USER_NOT_ALLOWED, URL_FORBIDDEN, PATH_FORBIDDEN,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND: a whitelisted group the bot is
     * not in; MESSAGE_NOT_FOUND: a `reply_to_message_id` the peer does not
     * know, nothing sent; MEDIA_NOT_FOUND, PATH_NOT_FOUND), INVALID_ARGUMENT
     * also for a quote of a message of another chat, RESOURCE_EXHAUSTED
     * (MEDIA_TOO_LARGE,
     * QUEUE_FULL, RATE_LIMITED with RetryInfo), UNAVAILABLE (ACCOUNT_OFFLINE for
     * media while offline), FAILED_PRECONDITION (UNSUPPORTED_BY_PEER,
     * BOT_MUTED, REMOVED_FROM_GROUP, RISK_CONTROLLED, ACCOUNT_NOT_CONFIGURED,
     * MEDIA_SOURCE_DISABLED), UNKNOWN (SEND_OUTCOME_UNKNOWN: the message may
     * have been delivered; do not retry blindly), ABORTED
     * (MEDIA_TRANSFER_FAILED).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService).
     * </pre>
     */
    default void sendMessage(dev.onebotgateway.v1.SendMessageRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.SendMessageResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSendMessageMethod(), responseObserver);
    }

    /**
     * <pre>
     * Reads one message by id (`get_msg`), with its quote resolved one level
     * deep, and renders it as one history line.
     * The message's chat must be readable by the caller's token (else
     * PERMISSION_DENIED, TOKEN_SCOPE). Read-only and idempotent. Errors:
     * INVALID_ARGUMENT (INVALID_REQUEST: `message_id` 0), NOT_FOUND
     * (MESSAGE_NOT_FOUND: the peer does not know the id, or it was recalled;
     * NapCat forgets ids after about 5000 messages), FAILED_PRECONDITION
     * (ACCOUNT_NOT_CONFIGURED), UNAVAILABLE (ACCOUNT_OFFLINE), DEADLINE_EXCEEDED
     * (ONEBOT_TIMEOUT), and the peer's own failures (ONEBOT_ACTION_FAILED).
     * </pre>
     */
    default void getMessage(dev.onebotgateway.v1.GetMessageRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.GetMessageResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetMessageMethod(), responseObserver);
    }

    /**
     * <pre>
     * Recalls (撤回) a message.
     * The gateway first reads the message (`get_msg`) and refuses one whose
     * chat is not in the account's whitelists (`groups`, `users`):
     * PERMISSION_DENIED, GROUP_NOT_ALLOWED or USER_NOT_ALLOWED; then
     * `delete_msg`. QQ lets the bot recall its own messages for 2 minutes, and
     * members' messages (not the owner's or other admins') when it is a group
     * admin; the peer's refusal (too old, not the sender, no admin rights) is
     * FAILED_PRECONDITION, ONEBOT_ACTION_FAILED with the peer's own text
     * (metadata `peer_message`). A recall made here is also published as a
     * `MessageRecalledEvent`. Destructive: needs a read-write token. Other
     * errors: NOT_FOUND (MESSAGE_NOT_FOUND), INVALID_ARGUMENT
     * (INVALID_REQUEST), UNAVAILABLE (ACCOUNT_OFFLINE), DEADLINE_EXCEEDED
     * (ONEBOT_TIMEOUT).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService).
     * </pre>
     */
    default void recallMessage(dev.onebotgateway.v1.RecallMessageRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.RecallMessageResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRecallMessageMethod(), responseObserver);
    }

    /**
     * <pre>
     * Opens a merged-forward bundle (合并转发): its nodes as messages, in order.
     * `forward_id` is a `ForwardSegment.id` as received. Nested bundles stay
     * `forward` segments: open them with another call. Node messages carry
     * what the peer reports (NapCat full messages; go-cqhttp, LLOneBot,
     * Lagrange and SnowLuma nodes with a sender and content, their ids often
     * 0); their chat is the chat the bundle was read through. Read-only.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: empty id), NOT_FOUND
     * (MESSAGE_NOT_FOUND: unknown or expired bundle), UNIMPLEMENTED
     * (ONEBOT_ACTION_UNSUPPORTED), UNAVAILABLE (ACCOUNT_OFFLINE),
     * DEADLINE_EXCEEDED (ONEBOT_TIMEOUT), and the peer's own failures.
     * </pre>
     */
    default void getForwardMessages(dev.onebotgateway.v1.GetForwardMessagesRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.GetForwardMessagesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetForwardMessagesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Searches the gateway's message archive: the messages of the chats in the
     * account's whitelists and `archive.chats`, the messages the gateway sent,
     * and what it read or backfilled from the peer's history, kept for
     * `archive.retention_days` (30 by default).
     * Matches every message whose text (`ChatMessage.text`, case-insensitive)
     * contains `query`, within the time range, from the sender, in the chat.
     * Pages run from the newest match towards older ones; each page is sorted
     * by time ascending. Pass `next_page_token` as `page_token` (with the same
     * other fields) for the next, older page: paging returns every match
     * exactly once. A search sees every message delivered on the account's
     * event stream before it was made (it waits up to 2 s for the archive to
     * take them; an archive whose database is unreachable answers with what
     * it holds).
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: a non-positive
     * chat id, `since` not before `until`, a bad or foreign `page_token`),
     * PERMISSION_DENIED (TOKEN_SCOPE: the token may not read the chat),
     * NOT_FOUND (GROUP_NOT_FOUND: a group the bot is not in),
     * FAILED_PRECONDITION (ACCOUNT_NOT_CONFIGURED; ARCHIVE_DISABLED when
     * `archive.enabled = false`; CHAT_NOT_ARCHIVED: the archive does not keep
     * the chat, so a search of it would be empty), INTERNAL (the archive's
     * store failed).
     * </pre>
     */
    default void searchMessages(dev.onebotgateway.v1.SearchMessagesRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.SearchMessagesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSearchMessagesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Adds an emoji reaction to a group message (表情回应), or removes the
     * bot's own with `remove`. The message's group is read from the peer and
     * must be whitelisted. OneBot: `set_msg_emoji_like` (NapCat, SnowLuma),
     * `set_msg_emoji_like` / `unset_msg_emoji_like` (LLOneBot),
     * `set_group_reaction` (Lagrange); Milky: `send_group_message_reaction`.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: message_id 0, an empty or
     * over-long emoji_id, a private message), NOT_FOUND (MESSAGE_NOT_FOUND),
     * PERMISSION_DENIED (GROUP_NOT_ALLOWED, TOKEN_SCOPE), UNIMPLEMENTED
     * (NOT_SUPPORTED_BY_IMPLEMENTATION: go-cqhttp; nothing is sent),
     * UNAVAILABLE (ACCOUNT_OFFLINE), and the peer's own failures
     * (ONEBOT_ACTION_FAILED).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService). Policy action: `react`.
     * </pre>
     */
    default void reactToMessage(dev.onebotgateway.v1.ReactToMessageRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ReactToMessageResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReactToMessageMethod(), responseObserver);
    }

    /**
     * <pre>
     * Marks a group message as essence (精华), or unmarks it with `remove`.
     * The bot must be the group's owner or an admin. OneBot:
     * `set_essence_msg` / `delete_essence_msg`; Milky:
     * `set_group_essence_message`.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: message_id 0, a private
     * message), NOT_FOUND (MESSAGE_NOT_FOUND), PERMISSION_DENIED
     * (GROUP_NOT_ALLOWED, TOKEN_SCOPE), FAILED_PRECONDITION (BOT_NOT_ADMIN,
     * decided from the member list before the peer is called), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures.
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService). Policy
     * action: `essence`.
     * </pre>
     */
    default void setEssence(dev.onebotgateway.v1.SetEssenceRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.SetEssenceResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSetEssenceMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists a group's essence messages (精华消息), a page at a time, newest
     * marking first as the peer orders them. OneBot peers list them whole
     * (`get_essence_msg_list`), and the gateway pages that list; Milky pages
     * itself (`get_group_essence_messages`). What each peer reports differs:
     * NapCat reports no message time, LLOneBot and go-cqhttp no content.
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: a bad page_size
     * or page_token; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures.
     * </pre>
     */
    default void listEssence(dev.onebotgateway.v1.ListEssenceRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ListEssenceResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListEssenceMethod(), responseObserver);
    }

    /**
     * <pre>
     * Shows "正在输入" (typing) to a user in a private chat, for example while
     * the model thinks. The user must be in the private whitelist (`users`).
     * OneBot: `set_input_status` (NapCat, SnowLuma).
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: user_id not positive),
     * PERMISSION_DENIED (USER_NOT_ALLOWED, TOKEN_SCOPE), UNIMPLEMENTED
     * (NOT_SUPPORTED_BY_IMPLEMENTATION: LLOneBot, Lagrange, go-cqhttp and
     * Milky have no such action; nothing is sent), UNAVAILABLE
     * (ACCOUNT_OFFLINE).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService). Policy action: `typing`.
     * </pre>
     */
    default void setTyping(dev.onebotgateway.v1.SetTypingRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.SetTypingResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSetTypingMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service MessageService.
   * <pre>
   * Reads message history and sends messages.
   * Every request names an `account_id` (empty means `default`): one of the
   * gateway's configured OneBot connections. An unknown account, or one with no
   * transport configured, fails with FAILED_PRECONDITION, reason
   * ACCOUNT_NOT_CONFIGURED, and no call is made to any peer.
   * </pre>
   */
  public static abstract class MessageServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return MessageServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service MessageService.
   * <pre>
   * Reads message history and sends messages.
   * Every request names an `account_id` (empty means `default`): one of the
   * gateway's configured OneBot connections. An unknown account, or one with no
   * transport configured, fails with FAILED_PRECONDITION, reason
   * ACCOUNT_NOT_CONFIGURED, and no call is made to any peer.
   * </pre>
   */
  public static final class MessageServiceStub
      extends io.grpc.stub.AbstractAsyncStub<MessageServiceStub> {
    private MessageServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected MessageServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new MessageServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Reads one page of a group or private chat's history, oldest first.
     * Pages from the newest message towards older ones: pass the response's
     * `next_anchor_message_id` as `anchor_message_id` to get the page before it.
     * The page never contains the anchor itself and has at most `count`
     * messages. An empty chat is an empty page, not an error.
     * Read-only and idempotent. Errors: INVALID_ARGUMENT (INVALID_REQUEST: no
     * chat or a non-positive id), NOT_FOUND (GROUP_NOT_FOUND: the bot is not in
     * the group, by the peer's group list), FAILED_PRECONDITION
     * (ACCOUNT_NOT_CONFIGURED, ONEBOT_AUTH_FAILED), UNAVAILABLE (ACCOUNT_OFFLINE,
     * ONEBOT_CONNECTION_LOST;
     * with RetryInfo), DEADLINE_EXCEEDED (ONEBOT_TIMEOUT), UNIMPLEMENTED
     * (HISTORY_UNSUPPORTED: e.g. go-cqhttp has no private history), and the
     * peer's own failures (ONEBOT_ACTION_FAILED with `retcode` and
     * `peer_message` metadata).
     * </pre>
     */
    public void getHistory(dev.onebotgateway.v1.GetHistoryRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.GetHistoryResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetHistoryMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Sends text, up to 4 images, 1 video and 1 file to a whitelisted group or
     * (with `user_id`) a whitelisted private chat, optionally quoting a message
     * and mentioning members.
     * Everything is validated and every media source resolved before the first
     * frame goes to the peer: a request is sent whole or refused whole. Order of
     * delivery: text (in chunks of at most `reply_chunk_size` characters), then
     * images, then the video, then the file. The quote and the mentions lead
     * the first message (a `reply` segment, then `at` segments, then the first
     * text chunk, else the first image or video; a message of their own before
     * a file, or when there is nothing else). While the account is offline a
     * text-only request is queued (durably, 50 entries / 30 minutes by default)
     * and the response says `queued`; requests with media are refused.
     * Idempotent when `idempotency_key` is set. Errors: INVALID_ARGUMENT
     * (EMPTY_MESSAGE, TEXT_TOO_LONG, TOO_MANY_IMAGES, TOO_MANY_VIDEOS,
     * GROUP_REQUIRED, MEDIA_TYPE_MISMATCH, INVALID_REQUEST), PERMISSION_DENIED
     * (GROUP_NOT_ALLOWED, USER_NOT_ALLOWED, URL_FORBIDDEN, PATH_FORBIDDEN,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND: a whitelisted group the bot is
     * not in; MESSAGE_NOT_FOUND: a `reply_to_message_id` the peer does not
     * know, nothing sent; MEDIA_NOT_FOUND, PATH_NOT_FOUND), INVALID_ARGUMENT
     * also for a quote of a message of another chat, RESOURCE_EXHAUSTED
     * (MEDIA_TOO_LARGE,
     * QUEUE_FULL, RATE_LIMITED with RetryInfo), UNAVAILABLE (ACCOUNT_OFFLINE for
     * media while offline), FAILED_PRECONDITION (UNSUPPORTED_BY_PEER,
     * BOT_MUTED, REMOVED_FROM_GROUP, RISK_CONTROLLED, ACCOUNT_NOT_CONFIGURED,
     * MEDIA_SOURCE_DISABLED), UNKNOWN (SEND_OUTCOME_UNKNOWN: the message may
     * have been delivered; do not retry blindly), ABORTED
     * (MEDIA_TRANSFER_FAILED).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService).
     * </pre>
     */
    public void sendMessage(dev.onebotgateway.v1.SendMessageRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.SendMessageResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSendMessageMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Reads one message by id (`get_msg`), with its quote resolved one level
     * deep, and renders it as one history line.
     * The message's chat must be readable by the caller's token (else
     * PERMISSION_DENIED, TOKEN_SCOPE). Read-only and idempotent. Errors:
     * INVALID_ARGUMENT (INVALID_REQUEST: `message_id` 0), NOT_FOUND
     * (MESSAGE_NOT_FOUND: the peer does not know the id, or it was recalled;
     * NapCat forgets ids after about 5000 messages), FAILED_PRECONDITION
     * (ACCOUNT_NOT_CONFIGURED), UNAVAILABLE (ACCOUNT_OFFLINE), DEADLINE_EXCEEDED
     * (ONEBOT_TIMEOUT), and the peer's own failures (ONEBOT_ACTION_FAILED).
     * </pre>
     */
    public void getMessage(dev.onebotgateway.v1.GetMessageRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.GetMessageResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetMessageMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Recalls (撤回) a message.
     * The gateway first reads the message (`get_msg`) and refuses one whose
     * chat is not in the account's whitelists (`groups`, `users`):
     * PERMISSION_DENIED, GROUP_NOT_ALLOWED or USER_NOT_ALLOWED; then
     * `delete_msg`. QQ lets the bot recall its own messages for 2 minutes, and
     * members' messages (not the owner's or other admins') when it is a group
     * admin; the peer's refusal (too old, not the sender, no admin rights) is
     * FAILED_PRECONDITION, ONEBOT_ACTION_FAILED with the peer's own text
     * (metadata `peer_message`). A recall made here is also published as a
     * `MessageRecalledEvent`. Destructive: needs a read-write token. Other
     * errors: NOT_FOUND (MESSAGE_NOT_FOUND), INVALID_ARGUMENT
     * (INVALID_REQUEST), UNAVAILABLE (ACCOUNT_OFFLINE), DEADLINE_EXCEEDED
     * (ONEBOT_TIMEOUT).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService).
     * </pre>
     */
    public void recallMessage(dev.onebotgateway.v1.RecallMessageRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.RecallMessageResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRecallMessageMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Opens a merged-forward bundle (合并转发): its nodes as messages, in order.
     * `forward_id` is a `ForwardSegment.id` as received. Nested bundles stay
     * `forward` segments: open them with another call. Node messages carry
     * what the peer reports (NapCat full messages; go-cqhttp, LLOneBot,
     * Lagrange and SnowLuma nodes with a sender and content, their ids often
     * 0); their chat is the chat the bundle was read through. Read-only.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: empty id), NOT_FOUND
     * (MESSAGE_NOT_FOUND: unknown or expired bundle), UNIMPLEMENTED
     * (ONEBOT_ACTION_UNSUPPORTED), UNAVAILABLE (ACCOUNT_OFFLINE),
     * DEADLINE_EXCEEDED (ONEBOT_TIMEOUT), and the peer's own failures.
     * </pre>
     */
    public void getForwardMessages(dev.onebotgateway.v1.GetForwardMessagesRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.GetForwardMessagesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetForwardMessagesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Searches the gateway's message archive: the messages of the chats in the
     * account's whitelists and `archive.chats`, the messages the gateway sent,
     * and what it read or backfilled from the peer's history, kept for
     * `archive.retention_days` (30 by default).
     * Matches every message whose text (`ChatMessage.text`, case-insensitive)
     * contains `query`, within the time range, from the sender, in the chat.
     * Pages run from the newest match towards older ones; each page is sorted
     * by time ascending. Pass `next_page_token` as `page_token` (with the same
     * other fields) for the next, older page: paging returns every match
     * exactly once. A search sees every message delivered on the account's
     * event stream before it was made (it waits up to 2 s for the archive to
     * take them; an archive whose database is unreachable answers with what
     * it holds).
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: a non-positive
     * chat id, `since` not before `until`, a bad or foreign `page_token`),
     * PERMISSION_DENIED (TOKEN_SCOPE: the token may not read the chat),
     * NOT_FOUND (GROUP_NOT_FOUND: a group the bot is not in),
     * FAILED_PRECONDITION (ACCOUNT_NOT_CONFIGURED; ARCHIVE_DISABLED when
     * `archive.enabled = false`; CHAT_NOT_ARCHIVED: the archive does not keep
     * the chat, so a search of it would be empty), INTERNAL (the archive's
     * store failed).
     * </pre>
     */
    public void searchMessages(dev.onebotgateway.v1.SearchMessagesRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.SearchMessagesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSearchMessagesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Adds an emoji reaction to a group message (表情回应), or removes the
     * bot's own with `remove`. The message's group is read from the peer and
     * must be whitelisted. OneBot: `set_msg_emoji_like` (NapCat, SnowLuma),
     * `set_msg_emoji_like` / `unset_msg_emoji_like` (LLOneBot),
     * `set_group_reaction` (Lagrange); Milky: `send_group_message_reaction`.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: message_id 0, an empty or
     * over-long emoji_id, a private message), NOT_FOUND (MESSAGE_NOT_FOUND),
     * PERMISSION_DENIED (GROUP_NOT_ALLOWED, TOKEN_SCOPE), UNIMPLEMENTED
     * (NOT_SUPPORTED_BY_IMPLEMENTATION: go-cqhttp; nothing is sent),
     * UNAVAILABLE (ACCOUNT_OFFLINE), and the peer's own failures
     * (ONEBOT_ACTION_FAILED).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService). Policy action: `react`.
     * </pre>
     */
    public void reactToMessage(dev.onebotgateway.v1.ReactToMessageRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ReactToMessageResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReactToMessageMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Marks a group message as essence (精华), or unmarks it with `remove`.
     * The bot must be the group's owner or an admin. OneBot:
     * `set_essence_msg` / `delete_essence_msg`; Milky:
     * `set_group_essence_message`.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: message_id 0, a private
     * message), NOT_FOUND (MESSAGE_NOT_FOUND), PERMISSION_DENIED
     * (GROUP_NOT_ALLOWED, TOKEN_SCOPE), FAILED_PRECONDITION (BOT_NOT_ADMIN,
     * decided from the member list before the peer is called), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures.
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService). Policy
     * action: `essence`.
     * </pre>
     */
    public void setEssence(dev.onebotgateway.v1.SetEssenceRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.SetEssenceResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSetEssenceMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists a group's essence messages (精华消息), a page at a time, newest
     * marking first as the peer orders them. OneBot peers list them whole
     * (`get_essence_msg_list`), and the gateway pages that list; Milky pages
     * itself (`get_group_essence_messages`). What each peer reports differs:
     * NapCat reports no message time, LLOneBot and go-cqhttp no content.
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: a bad page_size
     * or page_token; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures.
     * </pre>
     */
    public void listEssence(dev.onebotgateway.v1.ListEssenceRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ListEssenceResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListEssenceMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Shows "正在输入" (typing) to a user in a private chat, for example while
     * the model thinks. The user must be in the private whitelist (`users`).
     * OneBot: `set_input_status` (NapCat, SnowLuma).
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: user_id not positive),
     * PERMISSION_DENIED (USER_NOT_ALLOWED, TOKEN_SCOPE), UNIMPLEMENTED
     * (NOT_SUPPORTED_BY_IMPLEMENTATION: LLOneBot, Lagrange, go-cqhttp and
     * Milky have no such action; nothing is sent), UNAVAILABLE
     * (ACCOUNT_OFFLINE).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService). Policy action: `typing`.
     * </pre>
     */
    public void setTyping(dev.onebotgateway.v1.SetTypingRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.SetTypingResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSetTypingMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service MessageService.
   * <pre>
   * Reads message history and sends messages.
   * Every request names an `account_id` (empty means `default`): one of the
   * gateway's configured OneBot connections. An unknown account, or one with no
   * transport configured, fails with FAILED_PRECONDITION, reason
   * ACCOUNT_NOT_CONFIGURED, and no call is made to any peer.
   * </pre>
   */
  public static final class MessageServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<MessageServiceBlockingV2Stub> {
    private MessageServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected MessageServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new MessageServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * Reads one page of a group or private chat's history, oldest first.
     * Pages from the newest message towards older ones: pass the response's
     * `next_anchor_message_id` as `anchor_message_id` to get the page before it.
     * The page never contains the anchor itself and has at most `count`
     * messages. An empty chat is an empty page, not an error.
     * Read-only and idempotent. Errors: INVALID_ARGUMENT (INVALID_REQUEST: no
     * chat or a non-positive id), NOT_FOUND (GROUP_NOT_FOUND: the bot is not in
     * the group, by the peer's group list), FAILED_PRECONDITION
     * (ACCOUNT_NOT_CONFIGURED, ONEBOT_AUTH_FAILED), UNAVAILABLE (ACCOUNT_OFFLINE,
     * ONEBOT_CONNECTION_LOST;
     * with RetryInfo), DEADLINE_EXCEEDED (ONEBOT_TIMEOUT), UNIMPLEMENTED
     * (HISTORY_UNSUPPORTED: e.g. go-cqhttp has no private history), and the
     * peer's own failures (ONEBOT_ACTION_FAILED with `retcode` and
     * `peer_message` metadata).
     * </pre>
     */
    public dev.onebotgateway.v1.GetHistoryResponse getHistory(dev.onebotgateway.v1.GetHistoryRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetHistoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Sends text, up to 4 images, 1 video and 1 file to a whitelisted group or
     * (with `user_id`) a whitelisted private chat, optionally quoting a message
     * and mentioning members.
     * Everything is validated and every media source resolved before the first
     * frame goes to the peer: a request is sent whole or refused whole. Order of
     * delivery: text (in chunks of at most `reply_chunk_size` characters), then
     * images, then the video, then the file. The quote and the mentions lead
     * the first message (a `reply` segment, then `at` segments, then the first
     * text chunk, else the first image or video; a message of their own before
     * a file, or when there is nothing else). While the account is offline a
     * text-only request is queued (durably, 50 entries / 30 minutes by default)
     * and the response says `queued`; requests with media are refused.
     * Idempotent when `idempotency_key` is set. Errors: INVALID_ARGUMENT
     * (EMPTY_MESSAGE, TEXT_TOO_LONG, TOO_MANY_IMAGES, TOO_MANY_VIDEOS,
     * GROUP_REQUIRED, MEDIA_TYPE_MISMATCH, INVALID_REQUEST), PERMISSION_DENIED
     * (GROUP_NOT_ALLOWED, USER_NOT_ALLOWED, URL_FORBIDDEN, PATH_FORBIDDEN,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND: a whitelisted group the bot is
     * not in; MESSAGE_NOT_FOUND: a `reply_to_message_id` the peer does not
     * know, nothing sent; MEDIA_NOT_FOUND, PATH_NOT_FOUND), INVALID_ARGUMENT
     * also for a quote of a message of another chat, RESOURCE_EXHAUSTED
     * (MEDIA_TOO_LARGE,
     * QUEUE_FULL, RATE_LIMITED with RetryInfo), UNAVAILABLE (ACCOUNT_OFFLINE for
     * media while offline), FAILED_PRECONDITION (UNSUPPORTED_BY_PEER,
     * BOT_MUTED, REMOVED_FROM_GROUP, RISK_CONTROLLED, ACCOUNT_NOT_CONFIGURED,
     * MEDIA_SOURCE_DISABLED), UNKNOWN (SEND_OUTCOME_UNKNOWN: the message may
     * have been delivered; do not retry blindly), ABORTED
     * (MEDIA_TRANSFER_FAILED).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService).
     * </pre>
     */
    public dev.onebotgateway.v1.SendMessageResponse sendMessage(dev.onebotgateway.v1.SendMessageRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getSendMessageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Reads one message by id (`get_msg`), with its quote resolved one level
     * deep, and renders it as one history line.
     * The message's chat must be readable by the caller's token (else
     * PERMISSION_DENIED, TOKEN_SCOPE). Read-only and idempotent. Errors:
     * INVALID_ARGUMENT (INVALID_REQUEST: `message_id` 0), NOT_FOUND
     * (MESSAGE_NOT_FOUND: the peer does not know the id, or it was recalled;
     * NapCat forgets ids after about 5000 messages), FAILED_PRECONDITION
     * (ACCOUNT_NOT_CONFIGURED), UNAVAILABLE (ACCOUNT_OFFLINE), DEADLINE_EXCEEDED
     * (ONEBOT_TIMEOUT), and the peer's own failures (ONEBOT_ACTION_FAILED).
     * </pre>
     */
    public dev.onebotgateway.v1.GetMessageResponse getMessage(dev.onebotgateway.v1.GetMessageRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetMessageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Recalls (撤回) a message.
     * The gateway first reads the message (`get_msg`) and refuses one whose
     * chat is not in the account's whitelists (`groups`, `users`):
     * PERMISSION_DENIED, GROUP_NOT_ALLOWED or USER_NOT_ALLOWED; then
     * `delete_msg`. QQ lets the bot recall its own messages for 2 minutes, and
     * members' messages (not the owner's or other admins') when it is a group
     * admin; the peer's refusal (too old, not the sender, no admin rights) is
     * FAILED_PRECONDITION, ONEBOT_ACTION_FAILED with the peer's own text
     * (metadata `peer_message`). A recall made here is also published as a
     * `MessageRecalledEvent`. Destructive: needs a read-write token. Other
     * errors: NOT_FOUND (MESSAGE_NOT_FOUND), INVALID_ARGUMENT
     * (INVALID_REQUEST), UNAVAILABLE (ACCOUNT_OFFLINE), DEADLINE_EXCEEDED
     * (ONEBOT_TIMEOUT).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService).
     * </pre>
     */
    public dev.onebotgateway.v1.RecallMessageResponse recallMessage(dev.onebotgateway.v1.RecallMessageRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRecallMessageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Opens a merged-forward bundle (合并转发): its nodes as messages, in order.
     * `forward_id` is a `ForwardSegment.id` as received. Nested bundles stay
     * `forward` segments: open them with another call. Node messages carry
     * what the peer reports (NapCat full messages; go-cqhttp, LLOneBot,
     * Lagrange and SnowLuma nodes with a sender and content, their ids often
     * 0); their chat is the chat the bundle was read through. Read-only.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: empty id), NOT_FOUND
     * (MESSAGE_NOT_FOUND: unknown or expired bundle), UNIMPLEMENTED
     * (ONEBOT_ACTION_UNSUPPORTED), UNAVAILABLE (ACCOUNT_OFFLINE),
     * DEADLINE_EXCEEDED (ONEBOT_TIMEOUT), and the peer's own failures.
     * </pre>
     */
    public dev.onebotgateway.v1.GetForwardMessagesResponse getForwardMessages(dev.onebotgateway.v1.GetForwardMessagesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetForwardMessagesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Searches the gateway's message archive: the messages of the chats in the
     * account's whitelists and `archive.chats`, the messages the gateway sent,
     * and what it read or backfilled from the peer's history, kept for
     * `archive.retention_days` (30 by default).
     * Matches every message whose text (`ChatMessage.text`, case-insensitive)
     * contains `query`, within the time range, from the sender, in the chat.
     * Pages run from the newest match towards older ones; each page is sorted
     * by time ascending. Pass `next_page_token` as `page_token` (with the same
     * other fields) for the next, older page: paging returns every match
     * exactly once. A search sees every message delivered on the account's
     * event stream before it was made (it waits up to 2 s for the archive to
     * take them; an archive whose database is unreachable answers with what
     * it holds).
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: a non-positive
     * chat id, `since` not before `until`, a bad or foreign `page_token`),
     * PERMISSION_DENIED (TOKEN_SCOPE: the token may not read the chat),
     * NOT_FOUND (GROUP_NOT_FOUND: a group the bot is not in),
     * FAILED_PRECONDITION (ACCOUNT_NOT_CONFIGURED; ARCHIVE_DISABLED when
     * `archive.enabled = false`; CHAT_NOT_ARCHIVED: the archive does not keep
     * the chat, so a search of it would be empty), INTERNAL (the archive's
     * store failed).
     * </pre>
     */
    public dev.onebotgateway.v1.SearchMessagesResponse searchMessages(dev.onebotgateway.v1.SearchMessagesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getSearchMessagesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Adds an emoji reaction to a group message (表情回应), or removes the
     * bot's own with `remove`. The message's group is read from the peer and
     * must be whitelisted. OneBot: `set_msg_emoji_like` (NapCat, SnowLuma),
     * `set_msg_emoji_like` / `unset_msg_emoji_like` (LLOneBot),
     * `set_group_reaction` (Lagrange); Milky: `send_group_message_reaction`.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: message_id 0, an empty or
     * over-long emoji_id, a private message), NOT_FOUND (MESSAGE_NOT_FOUND),
     * PERMISSION_DENIED (GROUP_NOT_ALLOWED, TOKEN_SCOPE), UNIMPLEMENTED
     * (NOT_SUPPORTED_BY_IMPLEMENTATION: go-cqhttp; nothing is sent),
     * UNAVAILABLE (ACCOUNT_OFFLINE), and the peer's own failures
     * (ONEBOT_ACTION_FAILED).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService). Policy action: `react`.
     * </pre>
     */
    public dev.onebotgateway.v1.ReactToMessageResponse reactToMessage(dev.onebotgateway.v1.ReactToMessageRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getReactToMessageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Marks a group message as essence (精华), or unmarks it with `remove`.
     * The bot must be the group's owner or an admin. OneBot:
     * `set_essence_msg` / `delete_essence_msg`; Milky:
     * `set_group_essence_message`.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: message_id 0, a private
     * message), NOT_FOUND (MESSAGE_NOT_FOUND), PERMISSION_DENIED
     * (GROUP_NOT_ALLOWED, TOKEN_SCOPE), FAILED_PRECONDITION (BOT_NOT_ADMIN,
     * decided from the member list before the peer is called), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures.
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService). Policy
     * action: `essence`.
     * </pre>
     */
    public dev.onebotgateway.v1.SetEssenceResponse setEssence(dev.onebotgateway.v1.SetEssenceRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getSetEssenceMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists a group's essence messages (精华消息), a page at a time, newest
     * marking first as the peer orders them. OneBot peers list them whole
     * (`get_essence_msg_list`), and the gateway pages that list; Milky pages
     * itself (`get_group_essence_messages`). What each peer reports differs:
     * NapCat reports no message time, LLOneBot and go-cqhttp no content.
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: a bad page_size
     * or page_token; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures.
     * </pre>
     */
    public dev.onebotgateway.v1.ListEssenceResponse listEssence(dev.onebotgateway.v1.ListEssenceRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListEssenceMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Shows "正在输入" (typing) to a user in a private chat, for example while
     * the model thinks. The user must be in the private whitelist (`users`).
     * OneBot: `set_input_status` (NapCat, SnowLuma).
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: user_id not positive),
     * PERMISSION_DENIED (USER_NOT_ALLOWED, TOKEN_SCOPE), UNIMPLEMENTED
     * (NOT_SUPPORTED_BY_IMPLEMENTATION: LLOneBot, Lagrange, go-cqhttp and
     * Milky have no such action; nothing is sent), UNAVAILABLE
     * (ACCOUNT_OFFLINE).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService). Policy action: `typing`.
     * </pre>
     */
    public dev.onebotgateway.v1.SetTypingResponse setTyping(dev.onebotgateway.v1.SetTypingRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getSetTypingMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service MessageService.
   * <pre>
   * Reads message history and sends messages.
   * Every request names an `account_id` (empty means `default`): one of the
   * gateway's configured OneBot connections. An unknown account, or one with no
   * transport configured, fails with FAILED_PRECONDITION, reason
   * ACCOUNT_NOT_CONFIGURED, and no call is made to any peer.
   * </pre>
   */
  public static final class MessageServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<MessageServiceBlockingStub> {
    private MessageServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected MessageServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new MessageServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Reads one page of a group or private chat's history, oldest first.
     * Pages from the newest message towards older ones: pass the response's
     * `next_anchor_message_id` as `anchor_message_id` to get the page before it.
     * The page never contains the anchor itself and has at most `count`
     * messages. An empty chat is an empty page, not an error.
     * Read-only and idempotent. Errors: INVALID_ARGUMENT (INVALID_REQUEST: no
     * chat or a non-positive id), NOT_FOUND (GROUP_NOT_FOUND: the bot is not in
     * the group, by the peer's group list), FAILED_PRECONDITION
     * (ACCOUNT_NOT_CONFIGURED, ONEBOT_AUTH_FAILED), UNAVAILABLE (ACCOUNT_OFFLINE,
     * ONEBOT_CONNECTION_LOST;
     * with RetryInfo), DEADLINE_EXCEEDED (ONEBOT_TIMEOUT), UNIMPLEMENTED
     * (HISTORY_UNSUPPORTED: e.g. go-cqhttp has no private history), and the
     * peer's own failures (ONEBOT_ACTION_FAILED with `retcode` and
     * `peer_message` metadata).
     * </pre>
     */
    public dev.onebotgateway.v1.GetHistoryResponse getHistory(dev.onebotgateway.v1.GetHistoryRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetHistoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Sends text, up to 4 images, 1 video and 1 file to a whitelisted group or
     * (with `user_id`) a whitelisted private chat, optionally quoting a message
     * and mentioning members.
     * Everything is validated and every media source resolved before the first
     * frame goes to the peer: a request is sent whole or refused whole. Order of
     * delivery: text (in chunks of at most `reply_chunk_size` characters), then
     * images, then the video, then the file. The quote and the mentions lead
     * the first message (a `reply` segment, then `at` segments, then the first
     * text chunk, else the first image or video; a message of their own before
     * a file, or when there is nothing else). While the account is offline a
     * text-only request is queued (durably, 50 entries / 30 minutes by default)
     * and the response says `queued`; requests with media are refused.
     * Idempotent when `idempotency_key` is set. Errors: INVALID_ARGUMENT
     * (EMPTY_MESSAGE, TEXT_TOO_LONG, TOO_MANY_IMAGES, TOO_MANY_VIDEOS,
     * GROUP_REQUIRED, MEDIA_TYPE_MISMATCH, INVALID_REQUEST), PERMISSION_DENIED
     * (GROUP_NOT_ALLOWED, USER_NOT_ALLOWED, URL_FORBIDDEN, PATH_FORBIDDEN,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND: a whitelisted group the bot is
     * not in; MESSAGE_NOT_FOUND: a `reply_to_message_id` the peer does not
     * know, nothing sent; MEDIA_NOT_FOUND, PATH_NOT_FOUND), INVALID_ARGUMENT
     * also for a quote of a message of another chat, RESOURCE_EXHAUSTED
     * (MEDIA_TOO_LARGE,
     * QUEUE_FULL, RATE_LIMITED with RetryInfo), UNAVAILABLE (ACCOUNT_OFFLINE for
     * media while offline), FAILED_PRECONDITION (UNSUPPORTED_BY_PEER,
     * BOT_MUTED, REMOVED_FROM_GROUP, RISK_CONTROLLED, ACCOUNT_NOT_CONFIGURED,
     * MEDIA_SOURCE_DISABLED), UNKNOWN (SEND_OUTCOME_UNKNOWN: the message may
     * have been delivered; do not retry blindly), ABORTED
     * (MEDIA_TRANSFER_FAILED).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService).
     * </pre>
     */
    public dev.onebotgateway.v1.SendMessageResponse sendMessage(dev.onebotgateway.v1.SendMessageRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSendMessageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Reads one message by id (`get_msg`), with its quote resolved one level
     * deep, and renders it as one history line.
     * The message's chat must be readable by the caller's token (else
     * PERMISSION_DENIED, TOKEN_SCOPE). Read-only and idempotent. Errors:
     * INVALID_ARGUMENT (INVALID_REQUEST: `message_id` 0), NOT_FOUND
     * (MESSAGE_NOT_FOUND: the peer does not know the id, or it was recalled;
     * NapCat forgets ids after about 5000 messages), FAILED_PRECONDITION
     * (ACCOUNT_NOT_CONFIGURED), UNAVAILABLE (ACCOUNT_OFFLINE), DEADLINE_EXCEEDED
     * (ONEBOT_TIMEOUT), and the peer's own failures (ONEBOT_ACTION_FAILED).
     * </pre>
     */
    public dev.onebotgateway.v1.GetMessageResponse getMessage(dev.onebotgateway.v1.GetMessageRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetMessageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Recalls (撤回) a message.
     * The gateway first reads the message (`get_msg`) and refuses one whose
     * chat is not in the account's whitelists (`groups`, `users`):
     * PERMISSION_DENIED, GROUP_NOT_ALLOWED or USER_NOT_ALLOWED; then
     * `delete_msg`. QQ lets the bot recall its own messages for 2 minutes, and
     * members' messages (not the owner's or other admins') when it is a group
     * admin; the peer's refusal (too old, not the sender, no admin rights) is
     * FAILED_PRECONDITION, ONEBOT_ACTION_FAILED with the peer's own text
     * (metadata `peer_message`). A recall made here is also published as a
     * `MessageRecalledEvent`. Destructive: needs a read-write token. Other
     * errors: NOT_FOUND (MESSAGE_NOT_FOUND), INVALID_ARGUMENT
     * (INVALID_REQUEST), UNAVAILABLE (ACCOUNT_OFFLINE), DEADLINE_EXCEEDED
     * (ONEBOT_TIMEOUT).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService).
     * </pre>
     */
    public dev.onebotgateway.v1.RecallMessageResponse recallMessage(dev.onebotgateway.v1.RecallMessageRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRecallMessageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Opens a merged-forward bundle (合并转发): its nodes as messages, in order.
     * `forward_id` is a `ForwardSegment.id` as received. Nested bundles stay
     * `forward` segments: open them with another call. Node messages carry
     * what the peer reports (NapCat full messages; go-cqhttp, LLOneBot,
     * Lagrange and SnowLuma nodes with a sender and content, their ids often
     * 0); their chat is the chat the bundle was read through. Read-only.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: empty id), NOT_FOUND
     * (MESSAGE_NOT_FOUND: unknown or expired bundle), UNIMPLEMENTED
     * (ONEBOT_ACTION_UNSUPPORTED), UNAVAILABLE (ACCOUNT_OFFLINE),
     * DEADLINE_EXCEEDED (ONEBOT_TIMEOUT), and the peer's own failures.
     * </pre>
     */
    public dev.onebotgateway.v1.GetForwardMessagesResponse getForwardMessages(dev.onebotgateway.v1.GetForwardMessagesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetForwardMessagesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Searches the gateway's message archive: the messages of the chats in the
     * account's whitelists and `archive.chats`, the messages the gateway sent,
     * and what it read or backfilled from the peer's history, kept for
     * `archive.retention_days` (30 by default).
     * Matches every message whose text (`ChatMessage.text`, case-insensitive)
     * contains `query`, within the time range, from the sender, in the chat.
     * Pages run from the newest match towards older ones; each page is sorted
     * by time ascending. Pass `next_page_token` as `page_token` (with the same
     * other fields) for the next, older page: paging returns every match
     * exactly once. A search sees every message delivered on the account's
     * event stream before it was made (it waits up to 2 s for the archive to
     * take them; an archive whose database is unreachable answers with what
     * it holds).
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: a non-positive
     * chat id, `since` not before `until`, a bad or foreign `page_token`),
     * PERMISSION_DENIED (TOKEN_SCOPE: the token may not read the chat),
     * NOT_FOUND (GROUP_NOT_FOUND: a group the bot is not in),
     * FAILED_PRECONDITION (ACCOUNT_NOT_CONFIGURED; ARCHIVE_DISABLED when
     * `archive.enabled = false`; CHAT_NOT_ARCHIVED: the archive does not keep
     * the chat, so a search of it would be empty), INTERNAL (the archive's
     * store failed).
     * </pre>
     */
    public dev.onebotgateway.v1.SearchMessagesResponse searchMessages(dev.onebotgateway.v1.SearchMessagesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSearchMessagesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Adds an emoji reaction to a group message (表情回应), or removes the
     * bot's own with `remove`. The message's group is read from the peer and
     * must be whitelisted. OneBot: `set_msg_emoji_like` (NapCat, SnowLuma),
     * `set_msg_emoji_like` / `unset_msg_emoji_like` (LLOneBot),
     * `set_group_reaction` (Lagrange); Milky: `send_group_message_reaction`.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: message_id 0, an empty or
     * over-long emoji_id, a private message), NOT_FOUND (MESSAGE_NOT_FOUND),
     * PERMISSION_DENIED (GROUP_NOT_ALLOWED, TOKEN_SCOPE), UNIMPLEMENTED
     * (NOT_SUPPORTED_BY_IMPLEMENTATION: go-cqhttp; nothing is sent),
     * UNAVAILABLE (ACCOUNT_OFFLINE), and the peer's own failures
     * (ONEBOT_ACTION_FAILED).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService). Policy action: `react`.
     * </pre>
     */
    public dev.onebotgateway.v1.ReactToMessageResponse reactToMessage(dev.onebotgateway.v1.ReactToMessageRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReactToMessageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Marks a group message as essence (精华), or unmarks it with `remove`.
     * The bot must be the group's owner or an admin. OneBot:
     * `set_essence_msg` / `delete_essence_msg`; Milky:
     * `set_group_essence_message`.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: message_id 0, a private
     * message), NOT_FOUND (MESSAGE_NOT_FOUND), PERMISSION_DENIED
     * (GROUP_NOT_ALLOWED, TOKEN_SCOPE), FAILED_PRECONDITION (BOT_NOT_ADMIN,
     * decided from the member list before the peer is called), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures.
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService). Policy
     * action: `essence`.
     * </pre>
     */
    public dev.onebotgateway.v1.SetEssenceResponse setEssence(dev.onebotgateway.v1.SetEssenceRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSetEssenceMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists a group's essence messages (精华消息), a page at a time, newest
     * marking first as the peer orders them. OneBot peers list them whole
     * (`get_essence_msg_list`), and the gateway pages that list; Milky pages
     * itself (`get_group_essence_messages`). What each peer reports differs:
     * NapCat reports no message time, LLOneBot and go-cqhttp no content.
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: a bad page_size
     * or page_token; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures.
     * </pre>
     */
    public dev.onebotgateway.v1.ListEssenceResponse listEssence(dev.onebotgateway.v1.ListEssenceRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListEssenceMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Shows "正在输入" (typing) to a user in a private chat, for example while
     * the model thinks. The user must be in the private whitelist (`users`).
     * OneBot: `set_input_status` (NapCat, SnowLuma).
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: user_id not positive),
     * PERMISSION_DENIED (USER_NOT_ALLOWED, TOKEN_SCOPE), UNIMPLEMENTED
     * (NOT_SUPPORTED_BY_IMPLEMENTATION: LLOneBot, Lagrange, go-cqhttp and
     * Milky have no such action; nothing is sent), UNAVAILABLE
     * (ACCOUNT_OFFLINE).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService). Policy action: `typing`.
     * </pre>
     */
    public dev.onebotgateway.v1.SetTypingResponse setTyping(dev.onebotgateway.v1.SetTypingRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSetTypingMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service MessageService.
   * <pre>
   * Reads message history and sends messages.
   * Every request names an `account_id` (empty means `default`): one of the
   * gateway's configured OneBot connections. An unknown account, or one with no
   * transport configured, fails with FAILED_PRECONDITION, reason
   * ACCOUNT_NOT_CONFIGURED, and no call is made to any peer.
   * </pre>
   */
  public static final class MessageServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<MessageServiceFutureStub> {
    private MessageServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected MessageServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new MessageServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Reads one page of a group or private chat's history, oldest first.
     * Pages from the newest message towards older ones: pass the response's
     * `next_anchor_message_id` as `anchor_message_id` to get the page before it.
     * The page never contains the anchor itself and has at most `count`
     * messages. An empty chat is an empty page, not an error.
     * Read-only and idempotent. Errors: INVALID_ARGUMENT (INVALID_REQUEST: no
     * chat or a non-positive id), NOT_FOUND (GROUP_NOT_FOUND: the bot is not in
     * the group, by the peer's group list), FAILED_PRECONDITION
     * (ACCOUNT_NOT_CONFIGURED, ONEBOT_AUTH_FAILED), UNAVAILABLE (ACCOUNT_OFFLINE,
     * ONEBOT_CONNECTION_LOST;
     * with RetryInfo), DEADLINE_EXCEEDED (ONEBOT_TIMEOUT), UNIMPLEMENTED
     * (HISTORY_UNSUPPORTED: e.g. go-cqhttp has no private history), and the
     * peer's own failures (ONEBOT_ACTION_FAILED with `retcode` and
     * `peer_message` metadata).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.GetHistoryResponse> getHistory(
        dev.onebotgateway.v1.GetHistoryRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetHistoryMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Sends text, up to 4 images, 1 video and 1 file to a whitelisted group or
     * (with `user_id`) a whitelisted private chat, optionally quoting a message
     * and mentioning members.
     * Everything is validated and every media source resolved before the first
     * frame goes to the peer: a request is sent whole or refused whole. Order of
     * delivery: text (in chunks of at most `reply_chunk_size` characters), then
     * images, then the video, then the file. The quote and the mentions lead
     * the first message (a `reply` segment, then `at` segments, then the first
     * text chunk, else the first image or video; a message of their own before
     * a file, or when there is nothing else). While the account is offline a
     * text-only request is queued (durably, 50 entries / 30 minutes by default)
     * and the response says `queued`; requests with media are refused.
     * Idempotent when `idempotency_key` is set. Errors: INVALID_ARGUMENT
     * (EMPTY_MESSAGE, TEXT_TOO_LONG, TOO_MANY_IMAGES, TOO_MANY_VIDEOS,
     * GROUP_REQUIRED, MEDIA_TYPE_MISMATCH, INVALID_REQUEST), PERMISSION_DENIED
     * (GROUP_NOT_ALLOWED, USER_NOT_ALLOWED, URL_FORBIDDEN, PATH_FORBIDDEN,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND: a whitelisted group the bot is
     * not in; MESSAGE_NOT_FOUND: a `reply_to_message_id` the peer does not
     * know, nothing sent; MEDIA_NOT_FOUND, PATH_NOT_FOUND), INVALID_ARGUMENT
     * also for a quote of a message of another chat, RESOURCE_EXHAUSTED
     * (MEDIA_TOO_LARGE,
     * QUEUE_FULL, RATE_LIMITED with RetryInfo), UNAVAILABLE (ACCOUNT_OFFLINE for
     * media while offline), FAILED_PRECONDITION (UNSUPPORTED_BY_PEER,
     * BOT_MUTED, REMOVED_FROM_GROUP, RISK_CONTROLLED, ACCOUNT_NOT_CONFIGURED,
     * MEDIA_SOURCE_DISABLED), UNKNOWN (SEND_OUTCOME_UNKNOWN: the message may
     * have been delivered; do not retry blindly), ABORTED
     * (MEDIA_TRANSFER_FAILED).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.SendMessageResponse> sendMessage(
        dev.onebotgateway.v1.SendMessageRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSendMessageMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Reads one message by id (`get_msg`), with its quote resolved one level
     * deep, and renders it as one history line.
     * The message's chat must be readable by the caller's token (else
     * PERMISSION_DENIED, TOKEN_SCOPE). Read-only and idempotent. Errors:
     * INVALID_ARGUMENT (INVALID_REQUEST: `message_id` 0), NOT_FOUND
     * (MESSAGE_NOT_FOUND: the peer does not know the id, or it was recalled;
     * NapCat forgets ids after about 5000 messages), FAILED_PRECONDITION
     * (ACCOUNT_NOT_CONFIGURED), UNAVAILABLE (ACCOUNT_OFFLINE), DEADLINE_EXCEEDED
     * (ONEBOT_TIMEOUT), and the peer's own failures (ONEBOT_ACTION_FAILED).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.GetMessageResponse> getMessage(
        dev.onebotgateway.v1.GetMessageRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetMessageMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Recalls (撤回) a message.
     * The gateway first reads the message (`get_msg`) and refuses one whose
     * chat is not in the account's whitelists (`groups`, `users`):
     * PERMISSION_DENIED, GROUP_NOT_ALLOWED or USER_NOT_ALLOWED; then
     * `delete_msg`. QQ lets the bot recall its own messages for 2 minutes, and
     * members' messages (not the owner's or other admins') when it is a group
     * admin; the peer's refusal (too old, not the sender, no admin rights) is
     * FAILED_PRECONDITION, ONEBOT_ACTION_FAILED with the peer's own text
     * (metadata `peer_message`). A recall made here is also published as a
     * `MessageRecalledEvent`. Destructive: needs a read-write token. Other
     * errors: NOT_FOUND (MESSAGE_NOT_FOUND), INVALID_ARGUMENT
     * (INVALID_REQUEST), UNAVAILABLE (ACCOUNT_OFFLINE), DEADLINE_EXCEEDED
     * (ONEBOT_TIMEOUT).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.RecallMessageResponse> recallMessage(
        dev.onebotgateway.v1.RecallMessageRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRecallMessageMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Opens a merged-forward bundle (合并转发): its nodes as messages, in order.
     * `forward_id` is a `ForwardSegment.id` as received. Nested bundles stay
     * `forward` segments: open them with another call. Node messages carry
     * what the peer reports (NapCat full messages; go-cqhttp, LLOneBot,
     * Lagrange and SnowLuma nodes with a sender and content, their ids often
     * 0); their chat is the chat the bundle was read through. Read-only.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: empty id), NOT_FOUND
     * (MESSAGE_NOT_FOUND: unknown or expired bundle), UNIMPLEMENTED
     * (ONEBOT_ACTION_UNSUPPORTED), UNAVAILABLE (ACCOUNT_OFFLINE),
     * DEADLINE_EXCEEDED (ONEBOT_TIMEOUT), and the peer's own failures.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.GetForwardMessagesResponse> getForwardMessages(
        dev.onebotgateway.v1.GetForwardMessagesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetForwardMessagesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Searches the gateway's message archive: the messages of the chats in the
     * account's whitelists and `archive.chats`, the messages the gateway sent,
     * and what it read or backfilled from the peer's history, kept for
     * `archive.retention_days` (30 by default).
     * Matches every message whose text (`ChatMessage.text`, case-insensitive)
     * contains `query`, within the time range, from the sender, in the chat.
     * Pages run from the newest match towards older ones; each page is sorted
     * by time ascending. Pass `next_page_token` as `page_token` (with the same
     * other fields) for the next, older page: paging returns every match
     * exactly once. A search sees every message delivered on the account's
     * event stream before it was made (it waits up to 2 s for the archive to
     * take them; an archive whose database is unreachable answers with what
     * it holds).
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: a non-positive
     * chat id, `since` not before `until`, a bad or foreign `page_token`),
     * PERMISSION_DENIED (TOKEN_SCOPE: the token may not read the chat),
     * NOT_FOUND (GROUP_NOT_FOUND: a group the bot is not in),
     * FAILED_PRECONDITION (ACCOUNT_NOT_CONFIGURED; ARCHIVE_DISABLED when
     * `archive.enabled = false`; CHAT_NOT_ARCHIVED: the archive does not keep
     * the chat, so a search of it would be empty), INTERNAL (the archive's
     * store failed).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.SearchMessagesResponse> searchMessages(
        dev.onebotgateway.v1.SearchMessagesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSearchMessagesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Adds an emoji reaction to a group message (表情回应), or removes the
     * bot's own with `remove`. The message's group is read from the peer and
     * must be whitelisted. OneBot: `set_msg_emoji_like` (NapCat, SnowLuma),
     * `set_msg_emoji_like` / `unset_msg_emoji_like` (LLOneBot),
     * `set_group_reaction` (Lagrange); Milky: `send_group_message_reaction`.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: message_id 0, an empty or
     * over-long emoji_id, a private message), NOT_FOUND (MESSAGE_NOT_FOUND),
     * PERMISSION_DENIED (GROUP_NOT_ALLOWED, TOKEN_SCOPE), UNIMPLEMENTED
     * (NOT_SUPPORTED_BY_IMPLEMENTATION: go-cqhttp; nothing is sent),
     * UNAVAILABLE (ACCOUNT_OFFLINE), and the peer's own failures
     * (ONEBOT_ACTION_FAILED).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService). Policy action: `react`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.ReactToMessageResponse> reactToMessage(
        dev.onebotgateway.v1.ReactToMessageRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReactToMessageMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Marks a group message as essence (精华), or unmarks it with `remove`.
     * The bot must be the group's owner or an admin. OneBot:
     * `set_essence_msg` / `delete_essence_msg`; Milky:
     * `set_group_essence_message`.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: message_id 0, a private
     * message), NOT_FOUND (MESSAGE_NOT_FOUND), PERMISSION_DENIED
     * (GROUP_NOT_ALLOWED, TOKEN_SCOPE), FAILED_PRECONDITION (BOT_NOT_ADMIN,
     * decided from the member list before the peer is called), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures.
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService). Policy
     * action: `essence`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.SetEssenceResponse> setEssence(
        dev.onebotgateway.v1.SetEssenceRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSetEssenceMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists a group's essence messages (精华消息), a page at a time, newest
     * marking first as the peer orders them. OneBot peers list them whole
     * (`get_essence_msg_list`), and the gateway pages that list; Milky pages
     * itself (`get_group_essence_messages`). What each peer reports differs:
     * NapCat reports no message time, LLOneBot and go-cqhttp no content.
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: a bad page_size
     * or page_token; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.ListEssenceResponse> listEssence(
        dev.onebotgateway.v1.ListEssenceRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListEssenceMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Shows "正在输入" (typing) to a user in a private chat, for example while
     * the model thinks. The user must be in the private whitelist (`users`).
     * OneBot: `set_input_status` (NapCat, SnowLuma).
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: user_id not positive),
     * PERMISSION_DENIED (USER_NOT_ALLOWED, TOKEN_SCOPE), UNIMPLEMENTED
     * (NOT_SUPPORTED_BY_IMPLEMENTATION: LLOneBot, Lagrange, go-cqhttp and
     * Milky have no such action; nothing is sent), UNAVAILABLE
     * (ACCOUNT_OFFLINE).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService). Policy action: `typing`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.SetTypingResponse> setTyping(
        dev.onebotgateway.v1.SetTypingRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSetTypingMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_GET_HISTORY = 0;
  private static final int METHODID_SEND_MESSAGE = 1;
  private static final int METHODID_GET_MESSAGE = 2;
  private static final int METHODID_RECALL_MESSAGE = 3;
  private static final int METHODID_GET_FORWARD_MESSAGES = 4;
  private static final int METHODID_SEARCH_MESSAGES = 5;
  private static final int METHODID_REACT_TO_MESSAGE = 6;
  private static final int METHODID_SET_ESSENCE = 7;
  private static final int METHODID_LIST_ESSENCE = 8;
  private static final int METHODID_SET_TYPING = 9;

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
        case METHODID_GET_HISTORY:
          serviceImpl.getHistory((dev.onebotgateway.v1.GetHistoryRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.GetHistoryResponse>) responseObserver);
          break;
        case METHODID_SEND_MESSAGE:
          serviceImpl.sendMessage((dev.onebotgateway.v1.SendMessageRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.SendMessageResponse>) responseObserver);
          break;
        case METHODID_GET_MESSAGE:
          serviceImpl.getMessage((dev.onebotgateway.v1.GetMessageRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.GetMessageResponse>) responseObserver);
          break;
        case METHODID_RECALL_MESSAGE:
          serviceImpl.recallMessage((dev.onebotgateway.v1.RecallMessageRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.RecallMessageResponse>) responseObserver);
          break;
        case METHODID_GET_FORWARD_MESSAGES:
          serviceImpl.getForwardMessages((dev.onebotgateway.v1.GetForwardMessagesRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.GetForwardMessagesResponse>) responseObserver);
          break;
        case METHODID_SEARCH_MESSAGES:
          serviceImpl.searchMessages((dev.onebotgateway.v1.SearchMessagesRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.SearchMessagesResponse>) responseObserver);
          break;
        case METHODID_REACT_TO_MESSAGE:
          serviceImpl.reactToMessage((dev.onebotgateway.v1.ReactToMessageRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ReactToMessageResponse>) responseObserver);
          break;
        case METHODID_SET_ESSENCE:
          serviceImpl.setEssence((dev.onebotgateway.v1.SetEssenceRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.SetEssenceResponse>) responseObserver);
          break;
        case METHODID_LIST_ESSENCE:
          serviceImpl.listEssence((dev.onebotgateway.v1.ListEssenceRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ListEssenceResponse>) responseObserver);
          break;
        case METHODID_SET_TYPING:
          serviceImpl.setTyping((dev.onebotgateway.v1.SetTypingRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.SetTypingResponse>) responseObserver);
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
        default:
          throw new AssertionError();
      }
    }
  }

  public static final io.grpc.ServerServiceDefinition bindService(AsyncService service) {
    return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
        .addMethod(
          getGetHistoryMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.GetHistoryRequest,
              dev.onebotgateway.v1.GetHistoryResponse>(
                service, METHODID_GET_HISTORY)))
        .addMethod(
          getSendMessageMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.SendMessageRequest,
              dev.onebotgateway.v1.SendMessageResponse>(
                service, METHODID_SEND_MESSAGE)))
        .addMethod(
          getGetMessageMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.GetMessageRequest,
              dev.onebotgateway.v1.GetMessageResponse>(
                service, METHODID_GET_MESSAGE)))
        .addMethod(
          getRecallMessageMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.RecallMessageRequest,
              dev.onebotgateway.v1.RecallMessageResponse>(
                service, METHODID_RECALL_MESSAGE)))
        .addMethod(
          getGetForwardMessagesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.GetForwardMessagesRequest,
              dev.onebotgateway.v1.GetForwardMessagesResponse>(
                service, METHODID_GET_FORWARD_MESSAGES)))
        .addMethod(
          getSearchMessagesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.SearchMessagesRequest,
              dev.onebotgateway.v1.SearchMessagesResponse>(
                service, METHODID_SEARCH_MESSAGES)))
        .addMethod(
          getReactToMessageMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.ReactToMessageRequest,
              dev.onebotgateway.v1.ReactToMessageResponse>(
                service, METHODID_REACT_TO_MESSAGE)))
        .addMethod(
          getSetEssenceMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.SetEssenceRequest,
              dev.onebotgateway.v1.SetEssenceResponse>(
                service, METHODID_SET_ESSENCE)))
        .addMethod(
          getListEssenceMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.ListEssenceRequest,
              dev.onebotgateway.v1.ListEssenceResponse>(
                service, METHODID_LIST_ESSENCE)))
        .addMethod(
          getSetTypingMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.SetTypingRequest,
              dev.onebotgateway.v1.SetTypingResponse>(
                service, METHODID_SET_TYPING)))
        .build();
  }

  private static abstract class MessageServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    MessageServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.onebotgateway.v1.MessageServiceOuterClass.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("MessageService");
    }
  }

  private static final class MessageServiceFileDescriptorSupplier
      extends MessageServiceBaseDescriptorSupplier {
    MessageServiceFileDescriptorSupplier() {}
  }

  private static final class MessageServiceMethodDescriptorSupplier
      extends MessageServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    MessageServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (MessageServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new MessageServiceFileDescriptorSupplier())
              .addMethod(getGetHistoryMethod())
              .addMethod(getSendMessageMethod())
              .addMethod(getGetMessageMethod())
              .addMethod(getRecallMessageMethod())
              .addMethod(getGetForwardMessagesMethod())
              .addMethod(getSearchMessagesMethod())
              .addMethod(getReactToMessageMethod())
              .addMethod(getSetEssenceMethod())
              .addMethod(getListEssenceMethod())
              .addMethod(getSetTypingMethod())
              .build();
        }
      }
    }
    return result;
  }
}
