package dev.onebotgateway.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * Inbound events of an account: messages, pokes, member changes, lifecycle
 * and connection changes.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class EventServiceGrpc {

  private EventServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "onebot.gateway.v1.EventService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.StreamEventsRequest,
      dev.onebotgateway.v1.StreamEventsResponse> getStreamEventsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "StreamEvents",
      requestType = dev.onebotgateway.v1.StreamEventsRequest.class,
      responseType = dev.onebotgateway.v1.StreamEventsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.StreamEventsRequest,
      dev.onebotgateway.v1.StreamEventsResponse> getStreamEventsMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.StreamEventsRequest, dev.onebotgateway.v1.StreamEventsResponse> getStreamEventsMethod;
    if ((getStreamEventsMethod = EventServiceGrpc.getStreamEventsMethod) == null) {
      synchronized (EventServiceGrpc.class) {
        if ((getStreamEventsMethod = EventServiceGrpc.getStreamEventsMethod) == null) {
          EventServiceGrpc.getStreamEventsMethod = getStreamEventsMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.StreamEventsRequest, dev.onebotgateway.v1.StreamEventsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "StreamEvents"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.StreamEventsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.StreamEventsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new EventServiceMethodDescriptorSupplier("StreamEvents"))
              .build();
        }
      }
    }
    return getStreamEventsMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static EventServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<EventServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<EventServiceStub>() {
        @java.lang.Override
        public EventServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new EventServiceStub(channel, callOptions);
        }
      };
    return EventServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static EventServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<EventServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<EventServiceBlockingV2Stub>() {
        @java.lang.Override
        public EventServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new EventServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return EventServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static EventServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<EventServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<EventServiceBlockingStub>() {
        @java.lang.Override
        public EventServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new EventServiceBlockingStub(channel, callOptions);
        }
      };
    return EventServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static EventServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<EventServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<EventServiceFutureStub>() {
        @java.lang.Override
        public EventServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new EventServiceFutureStub(channel, callOptions);
        }
      };
    return EventServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * Inbound events of an account: messages, pokes, member changes, lifecycle
   * and connection changes.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * Streams the events of one account as they arrive, with optional filters.
     * Every event has a per-account sequence number that increases by one. A
     * client that reconnects with `after_sequence` first receives the events it
     * missed from a bounded ring buffer (1024 events by default); when the gap
     * is older than the buffer the stream fails at once with OUT_OF_RANGE,
     * reason EVENT_GAP_TOO_OLD (metadata `oldest_sequence`). A subscriber that
     * cannot keep up gets RESOURCE_EXHAUSTED, EVENT_STREAM_LAGGED (metadata
     * `last_sequence`), never silent loss: reconnect with `after_sequence`.
     * The stream ends (OK) when the gateway shuts down.
     * Besides events the stream carries heartbeats (see
     * `StreamEventsResponse.heartbeat`): one at the start and one after every
     * `events.heartbeat_secs` of silence. Clients skip them; their
     * `last_sequence` is where to resume.
     * </pre>
     */
    default void streamEvents(dev.onebotgateway.v1.StreamEventsRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.StreamEventsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getStreamEventsMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service EventService.
   * <pre>
   * Inbound events of an account: messages, pokes, member changes, lifecycle
   * and connection changes.
   * </pre>
   */
  public static abstract class EventServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return EventServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service EventService.
   * <pre>
   * Inbound events of an account: messages, pokes, member changes, lifecycle
   * and connection changes.
   * </pre>
   */
  public static final class EventServiceStub
      extends io.grpc.stub.AbstractAsyncStub<EventServiceStub> {
    private EventServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected EventServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new EventServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Streams the events of one account as they arrive, with optional filters.
     * Every event has a per-account sequence number that increases by one. A
     * client that reconnects with `after_sequence` first receives the events it
     * missed from a bounded ring buffer (1024 events by default); when the gap
     * is older than the buffer the stream fails at once with OUT_OF_RANGE,
     * reason EVENT_GAP_TOO_OLD (metadata `oldest_sequence`). A subscriber that
     * cannot keep up gets RESOURCE_EXHAUSTED, EVENT_STREAM_LAGGED (metadata
     * `last_sequence`), never silent loss: reconnect with `after_sequence`.
     * The stream ends (OK) when the gateway shuts down.
     * Besides events the stream carries heartbeats (see
     * `StreamEventsResponse.heartbeat`): one at the start and one after every
     * `events.heartbeat_secs` of silence. Clients skip them; their
     * `last_sequence` is where to resume.
     * </pre>
     */
    public void streamEvents(dev.onebotgateway.v1.StreamEventsRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.StreamEventsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getStreamEventsMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service EventService.
   * <pre>
   * Inbound events of an account: messages, pokes, member changes, lifecycle
   * and connection changes.
   * </pre>
   */
  public static final class EventServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<EventServiceBlockingV2Stub> {
    private EventServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected EventServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new EventServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * Streams the events of one account as they arrive, with optional filters.
     * Every event has a per-account sequence number that increases by one. A
     * client that reconnects with `after_sequence` first receives the events it
     * missed from a bounded ring buffer (1024 events by default); when the gap
     * is older than the buffer the stream fails at once with OUT_OF_RANGE,
     * reason EVENT_GAP_TOO_OLD (metadata `oldest_sequence`). A subscriber that
     * cannot keep up gets RESOURCE_EXHAUSTED, EVENT_STREAM_LAGGED (metadata
     * `last_sequence`), never silent loss: reconnect with `after_sequence`.
     * The stream ends (OK) when the gateway shuts down.
     * Besides events the stream carries heartbeats (see
     * `StreamEventsResponse.heartbeat`): one at the start and one after every
     * `events.heartbeat_secs` of silence. Clients skip them; their
     * `last_sequence` is where to resume.
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<?, dev.onebotgateway.v1.StreamEventsResponse>
        streamEvents(dev.onebotgateway.v1.StreamEventsRequest request) {
      return io.grpc.stub.ClientCalls.blockingV2ServerStreamingCall(
          getChannel(), getStreamEventsMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service EventService.
   * <pre>
   * Inbound events of an account: messages, pokes, member changes, lifecycle
   * and connection changes.
   * </pre>
   */
  public static final class EventServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<EventServiceBlockingStub> {
    private EventServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected EventServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new EventServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Streams the events of one account as they arrive, with optional filters.
     * Every event has a per-account sequence number that increases by one. A
     * client that reconnects with `after_sequence` first receives the events it
     * missed from a bounded ring buffer (1024 events by default); when the gap
     * is older than the buffer the stream fails at once with OUT_OF_RANGE,
     * reason EVENT_GAP_TOO_OLD (metadata `oldest_sequence`). A subscriber that
     * cannot keep up gets RESOURCE_EXHAUSTED, EVENT_STREAM_LAGGED (metadata
     * `last_sequence`), never silent loss: reconnect with `after_sequence`.
     * The stream ends (OK) when the gateway shuts down.
     * Besides events the stream carries heartbeats (see
     * `StreamEventsResponse.heartbeat`): one at the start and one after every
     * `events.heartbeat_secs` of silence. Clients skip them; their
     * `last_sequence` is where to resume.
     * </pre>
     */
    public java.util.Iterator<dev.onebotgateway.v1.StreamEventsResponse> streamEvents(
        dev.onebotgateway.v1.StreamEventsRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getStreamEventsMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service EventService.
   * <pre>
   * Inbound events of an account: messages, pokes, member changes, lifecycle
   * and connection changes.
   * </pre>
   */
  public static final class EventServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<EventServiceFutureStub> {
    private EventServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected EventServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new EventServiceFutureStub(channel, callOptions);
    }
  }

  private static final int METHODID_STREAM_EVENTS = 0;

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
        case METHODID_STREAM_EVENTS:
          serviceImpl.streamEvents((dev.onebotgateway.v1.StreamEventsRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.StreamEventsResponse>) responseObserver);
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
          getStreamEventsMethod(),
          io.grpc.stub.ServerCalls.asyncServerStreamingCall(
            new MethodHandlers<
              dev.onebotgateway.v1.StreamEventsRequest,
              dev.onebotgateway.v1.StreamEventsResponse>(
                service, METHODID_STREAM_EVENTS)))
        .build();
  }

  private static abstract class EventServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    EventServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.onebotgateway.v1.EventServiceOuterClass.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("EventService");
    }
  }

  private static final class EventServiceFileDescriptorSupplier
      extends EventServiceBaseDescriptorSupplier {
    EventServiceFileDescriptorSupplier() {}
  }

  private static final class EventServiceMethodDescriptorSupplier
      extends EventServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    EventServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (EventServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new EventServiceFileDescriptorSupplier())
              .addMethod(getStreamEventsMethod())
              .build();
        }
      }
    }
    return result;
  }
}
