package dev.onebotgateway.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * QQ tools (history, members, send, poke, get message, recall, get forward, get media, waiting for messages) as agent tools: a name, a description, a JSON Schema and a text result.
 * Any agent runtime can register them without knowing the rest of the API.
 * The whole service answers UNIMPLEMENTED, reason TOOLS_DISABLED, when the
 * operator sets `tools.enabled = false`.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class AgentToolServiceGrpc {

  private AgentToolServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "onebot.gateway.v1.AgentToolService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.ListToolsRequest,
      dev.onebotgateway.v1.ListToolsResponse> getListToolsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListTools",
      requestType = dev.onebotgateway.v1.ListToolsRequest.class,
      responseType = dev.onebotgateway.v1.ListToolsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.ListToolsRequest,
      dev.onebotgateway.v1.ListToolsResponse> getListToolsMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.ListToolsRequest, dev.onebotgateway.v1.ListToolsResponse> getListToolsMethod;
    if ((getListToolsMethod = AgentToolServiceGrpc.getListToolsMethod) == null) {
      synchronized (AgentToolServiceGrpc.class) {
        if ((getListToolsMethod = AgentToolServiceGrpc.getListToolsMethod) == null) {
          AgentToolServiceGrpc.getListToolsMethod = getListToolsMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.ListToolsRequest, dev.onebotgateway.v1.ListToolsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListTools"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.ListToolsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.ListToolsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentToolServiceMethodDescriptorSupplier("ListTools"))
              .build();
        }
      }
    }
    return getListToolsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.CallToolRequest,
      dev.onebotgateway.v1.CallToolResponse> getCallToolMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CallTool",
      requestType = dev.onebotgateway.v1.CallToolRequest.class,
      responseType = dev.onebotgateway.v1.CallToolResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.CallToolRequest,
      dev.onebotgateway.v1.CallToolResponse> getCallToolMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.CallToolRequest, dev.onebotgateway.v1.CallToolResponse> getCallToolMethod;
    if ((getCallToolMethod = AgentToolServiceGrpc.getCallToolMethod) == null) {
      synchronized (AgentToolServiceGrpc.class) {
        if ((getCallToolMethod = AgentToolServiceGrpc.getCallToolMethod) == null) {
          AgentToolServiceGrpc.getCallToolMethod = getCallToolMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.CallToolRequest, dev.onebotgateway.v1.CallToolResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CallTool"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.CallToolRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.CallToolResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentToolServiceMethodDescriptorSupplier("CallTool"))
              .build();
        }
      }
    }
    return getCallToolMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static AgentToolServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AgentToolServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AgentToolServiceStub>() {
        @java.lang.Override
        public AgentToolServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AgentToolServiceStub(channel, callOptions);
        }
      };
    return AgentToolServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static AgentToolServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AgentToolServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AgentToolServiceBlockingV2Stub>() {
        @java.lang.Override
        public AgentToolServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AgentToolServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return AgentToolServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static AgentToolServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AgentToolServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AgentToolServiceBlockingStub>() {
        @java.lang.Override
        public AgentToolServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AgentToolServiceBlockingStub(channel, callOptions);
        }
      };
    return AgentToolServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static AgentToolServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AgentToolServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AgentToolServiceFutureStub>() {
        @java.lang.Override
        public AgentToolServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AgentToolServiceFutureStub(channel, callOptions);
        }
      };
    return AgentToolServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * QQ tools (history, members, send, poke, get message, recall, get forward, get media, waiting for messages) as agent tools: a name, a description, a JSON Schema and a text result.
   * Any agent runtime can register them without knowing the rest of the API.
   * The whole service answers UNIMPLEMENTED, reason TOOLS_DISABLED, when the
   * operator sets `tools.enabled = false`.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * Lists the tools with their descriptions and JSON Schemas (draft 2020-12).
     * Read-only and idempotent. When `tools.write_enabled` is false, or the
     * caller's token is read-only, `qq_send`, `qq_poke` and `qq_recall` are
     * not listed.
     * </pre>
     */
    default void listTools(dev.onebotgateway.v1.ListToolsRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ListToolsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListToolsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Calls one tool. Never fails at the gRPC level for anything about the call
     * itself: an unknown tool, bad JSON, bad arguments, an unconfigured
     * account, an offline peer, the peer's auth failure, a timeout or a peer
     * error all come back as a normal response with `is_error` true, `text`
     * equal to `details.error` and `details = {"status":"failed","error":...}`.
     * Only the gateway's own auth and the caller's gRPC deadline are gRPC
     * errors.
     * </pre>
     */
    default void callTool(dev.onebotgateway.v1.CallToolRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.CallToolResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCallToolMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service AgentToolService.
   * <pre>
   * QQ tools (history, members, send, poke, get message, recall, get forward, get media, waiting for messages) as agent tools: a name, a description, a JSON Schema and a text result.
   * Any agent runtime can register them without knowing the rest of the API.
   * The whole service answers UNIMPLEMENTED, reason TOOLS_DISABLED, when the
   * operator sets `tools.enabled = false`.
   * </pre>
   */
  public static abstract class AgentToolServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return AgentToolServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service AgentToolService.
   * <pre>
   * QQ tools (history, members, send, poke, get message, recall, get forward, get media, waiting for messages) as agent tools: a name, a description, a JSON Schema and a text result.
   * Any agent runtime can register them without knowing the rest of the API.
   * The whole service answers UNIMPLEMENTED, reason TOOLS_DISABLED, when the
   * operator sets `tools.enabled = false`.
   * </pre>
   */
  public static final class AgentToolServiceStub
      extends io.grpc.stub.AbstractAsyncStub<AgentToolServiceStub> {
    private AgentToolServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AgentToolServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AgentToolServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Lists the tools with their descriptions and JSON Schemas (draft 2020-12).
     * Read-only and idempotent. When `tools.write_enabled` is false, or the
     * caller's token is read-only, `qq_send`, `qq_poke` and `qq_recall` are
     * not listed.
     * </pre>
     */
    public void listTools(dev.onebotgateway.v1.ListToolsRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ListToolsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListToolsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Calls one tool. Never fails at the gRPC level for anything about the call
     * itself: an unknown tool, bad JSON, bad arguments, an unconfigured
     * account, an offline peer, the peer's auth failure, a timeout or a peer
     * error all come back as a normal response with `is_error` true, `text`
     * equal to `details.error` and `details = {"status":"failed","error":...}`.
     * Only the gateway's own auth and the caller's gRPC deadline are gRPC
     * errors.
     * </pre>
     */
    public void callTool(dev.onebotgateway.v1.CallToolRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.CallToolResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCallToolMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service AgentToolService.
   * <pre>
   * QQ tools (history, members, send, poke, get message, recall, get forward, get media, waiting for messages) as agent tools: a name, a description, a JSON Schema and a text result.
   * Any agent runtime can register them without knowing the rest of the API.
   * The whole service answers UNIMPLEMENTED, reason TOOLS_DISABLED, when the
   * operator sets `tools.enabled = false`.
   * </pre>
   */
  public static final class AgentToolServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<AgentToolServiceBlockingV2Stub> {
    private AgentToolServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AgentToolServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AgentToolServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * Lists the tools with their descriptions and JSON Schemas (draft 2020-12).
     * Read-only and idempotent. When `tools.write_enabled` is false, or the
     * caller's token is read-only, `qq_send`, `qq_poke` and `qq_recall` are
     * not listed.
     * </pre>
     */
    public dev.onebotgateway.v1.ListToolsResponse listTools(dev.onebotgateway.v1.ListToolsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListToolsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Calls one tool. Never fails at the gRPC level for anything about the call
     * itself: an unknown tool, bad JSON, bad arguments, an unconfigured
     * account, an offline peer, the peer's auth failure, a timeout or a peer
     * error all come back as a normal response with `is_error` true, `text`
     * equal to `details.error` and `details = {"status":"failed","error":...}`.
     * Only the gateway's own auth and the caller's gRPC deadline are gRPC
     * errors.
     * </pre>
     */
    public dev.onebotgateway.v1.CallToolResponse callTool(dev.onebotgateway.v1.CallToolRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCallToolMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service AgentToolService.
   * <pre>
   * QQ tools (history, members, send, poke, get message, recall, get forward, get media, waiting for messages) as agent tools: a name, a description, a JSON Schema and a text result.
   * Any agent runtime can register them without knowing the rest of the API.
   * The whole service answers UNIMPLEMENTED, reason TOOLS_DISABLED, when the
   * operator sets `tools.enabled = false`.
   * </pre>
   */
  public static final class AgentToolServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<AgentToolServiceBlockingStub> {
    private AgentToolServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AgentToolServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AgentToolServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Lists the tools with their descriptions and JSON Schemas (draft 2020-12).
     * Read-only and idempotent. When `tools.write_enabled` is false, or the
     * caller's token is read-only, `qq_send`, `qq_poke` and `qq_recall` are
     * not listed.
     * </pre>
     */
    public dev.onebotgateway.v1.ListToolsResponse listTools(dev.onebotgateway.v1.ListToolsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListToolsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Calls one tool. Never fails at the gRPC level for anything about the call
     * itself: an unknown tool, bad JSON, bad arguments, an unconfigured
     * account, an offline peer, the peer's auth failure, a timeout or a peer
     * error all come back as a normal response with `is_error` true, `text`
     * equal to `details.error` and `details = {"status":"failed","error":...}`.
     * Only the gateway's own auth and the caller's gRPC deadline are gRPC
     * errors.
     * </pre>
     */
    public dev.onebotgateway.v1.CallToolResponse callTool(dev.onebotgateway.v1.CallToolRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCallToolMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service AgentToolService.
   * <pre>
   * QQ tools (history, members, send, poke, get message, recall, get forward, get media, waiting for messages) as agent tools: a name, a description, a JSON Schema and a text result.
   * Any agent runtime can register them without knowing the rest of the API.
   * The whole service answers UNIMPLEMENTED, reason TOOLS_DISABLED, when the
   * operator sets `tools.enabled = false`.
   * </pre>
   */
  public static final class AgentToolServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<AgentToolServiceFutureStub> {
    private AgentToolServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AgentToolServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AgentToolServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Lists the tools with their descriptions and JSON Schemas (draft 2020-12).
     * Read-only and idempotent. When `tools.write_enabled` is false, or the
     * caller's token is read-only, `qq_send`, `qq_poke` and `qq_recall` are
     * not listed.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.ListToolsResponse> listTools(
        dev.onebotgateway.v1.ListToolsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListToolsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Calls one tool. Never fails at the gRPC level for anything about the call
     * itself: an unknown tool, bad JSON, bad arguments, an unconfigured
     * account, an offline peer, the peer's auth failure, a timeout or a peer
     * error all come back as a normal response with `is_error` true, `text`
     * equal to `details.error` and `details = {"status":"failed","error":...}`.
     * Only the gateway's own auth and the caller's gRPC deadline are gRPC
     * errors.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.CallToolResponse> callTool(
        dev.onebotgateway.v1.CallToolRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCallToolMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_LIST_TOOLS = 0;
  private static final int METHODID_CALL_TOOL = 1;

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
        case METHODID_LIST_TOOLS:
          serviceImpl.listTools((dev.onebotgateway.v1.ListToolsRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ListToolsResponse>) responseObserver);
          break;
        case METHODID_CALL_TOOL:
          serviceImpl.callTool((dev.onebotgateway.v1.CallToolRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.CallToolResponse>) responseObserver);
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
          getListToolsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.ListToolsRequest,
              dev.onebotgateway.v1.ListToolsResponse>(
                service, METHODID_LIST_TOOLS)))
        .addMethod(
          getCallToolMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.CallToolRequest,
              dev.onebotgateway.v1.CallToolResponse>(
                service, METHODID_CALL_TOOL)))
        .build();
  }

  private static abstract class AgentToolServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    AgentToolServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.onebotgateway.v1.AgentToolServiceOuterClass.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("AgentToolService");
    }
  }

  private static final class AgentToolServiceFileDescriptorSupplier
      extends AgentToolServiceBaseDescriptorSupplier {
    AgentToolServiceFileDescriptorSupplier() {}
  }

  private static final class AgentToolServiceMethodDescriptorSupplier
      extends AgentToolServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    AgentToolServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (AgentToolServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new AgentToolServiceFileDescriptorSupplier())
              .addMethod(getListToolsMethod())
              .addMethod(getCallToolMethod())
              .build();
        }
      }
    }
    return result;
  }
}
