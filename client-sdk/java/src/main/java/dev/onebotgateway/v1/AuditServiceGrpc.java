package dev.onebotgateway.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * The audit trail: every write the gateway performed or refused, and every
 * approval's change, kept durably where the archive keeps its messages
 * (PostgreSQL at `archive.url`, else `governance.sqlite3` in the data
 * directory) for `archive.retention_days`.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class AuditServiceGrpc {

  private AuditServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "onebot.gateway.v1.AuditService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.ListAuditRecordsRequest,
      dev.onebotgateway.v1.ListAuditRecordsResponse> getListAuditRecordsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListAuditRecords",
      requestType = dev.onebotgateway.v1.ListAuditRecordsRequest.class,
      responseType = dev.onebotgateway.v1.ListAuditRecordsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.ListAuditRecordsRequest,
      dev.onebotgateway.v1.ListAuditRecordsResponse> getListAuditRecordsMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.ListAuditRecordsRequest, dev.onebotgateway.v1.ListAuditRecordsResponse> getListAuditRecordsMethod;
    if ((getListAuditRecordsMethod = AuditServiceGrpc.getListAuditRecordsMethod) == null) {
      synchronized (AuditServiceGrpc.class) {
        if ((getListAuditRecordsMethod = AuditServiceGrpc.getListAuditRecordsMethod) == null) {
          AuditServiceGrpc.getListAuditRecordsMethod = getListAuditRecordsMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.ListAuditRecordsRequest, dev.onebotgateway.v1.ListAuditRecordsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListAuditRecords"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.ListAuditRecordsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.ListAuditRecordsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AuditServiceMethodDescriptorSupplier("ListAuditRecords"))
              .build();
        }
      }
    }
    return getListAuditRecordsMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static AuditServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AuditServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AuditServiceStub>() {
        @java.lang.Override
        public AuditServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AuditServiceStub(channel, callOptions);
        }
      };
    return AuditServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static AuditServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AuditServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AuditServiceBlockingV2Stub>() {
        @java.lang.Override
        public AuditServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AuditServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return AuditServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static AuditServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AuditServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AuditServiceBlockingStub>() {
        @java.lang.Override
        public AuditServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AuditServiceBlockingStub(channel, callOptions);
        }
      };
    return AuditServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static AuditServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AuditServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AuditServiceFutureStub>() {
        @java.lang.Override
        public AuditServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AuditServiceFutureStub(channel, callOptions);
        }
      };
    return AuditServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * The audit trail: every write the gateway performed or refused, and every
   * approval's change, kept durably where the archive keeps its messages
   * (PostgreSQL at `archive.url`, else `governance.sqlite3` in the data
   * directory) for `archive.retention_days`.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * Lists audit records, newest first, one page at a time.
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: a bad page token
     * or filter), PERMISSION_DENIED (TOKEN_SCOPE).
     * </pre>
     */
    default void listAuditRecords(dev.onebotgateway.v1.ListAuditRecordsRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ListAuditRecordsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListAuditRecordsMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service AuditService.
   * <pre>
   * The audit trail: every write the gateway performed or refused, and every
   * approval's change, kept durably where the archive keeps its messages
   * (PostgreSQL at `archive.url`, else `governance.sqlite3` in the data
   * directory) for `archive.retention_days`.
   * </pre>
   */
  public static abstract class AuditServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return AuditServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service AuditService.
   * <pre>
   * The audit trail: every write the gateway performed or refused, and every
   * approval's change, kept durably where the archive keeps its messages
   * (PostgreSQL at `archive.url`, else `governance.sqlite3` in the data
   * directory) for `archive.retention_days`.
   * </pre>
   */
  public static final class AuditServiceStub
      extends io.grpc.stub.AbstractAsyncStub<AuditServiceStub> {
    private AuditServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AuditServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AuditServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Lists audit records, newest first, one page at a time.
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: a bad page token
     * or filter), PERMISSION_DENIED (TOKEN_SCOPE).
     * </pre>
     */
    public void listAuditRecords(dev.onebotgateway.v1.ListAuditRecordsRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ListAuditRecordsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListAuditRecordsMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service AuditService.
   * <pre>
   * The audit trail: every write the gateway performed or refused, and every
   * approval's change, kept durably where the archive keeps its messages
   * (PostgreSQL at `archive.url`, else `governance.sqlite3` in the data
   * directory) for `archive.retention_days`.
   * </pre>
   */
  public static final class AuditServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<AuditServiceBlockingV2Stub> {
    private AuditServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AuditServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AuditServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * Lists audit records, newest first, one page at a time.
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: a bad page token
     * or filter), PERMISSION_DENIED (TOKEN_SCOPE).
     * </pre>
     */
    public dev.onebotgateway.v1.ListAuditRecordsResponse listAuditRecords(dev.onebotgateway.v1.ListAuditRecordsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListAuditRecordsMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service AuditService.
   * <pre>
   * The audit trail: every write the gateway performed or refused, and every
   * approval's change, kept durably where the archive keeps its messages
   * (PostgreSQL at `archive.url`, else `governance.sqlite3` in the data
   * directory) for `archive.retention_days`.
   * </pre>
   */
  public static final class AuditServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<AuditServiceBlockingStub> {
    private AuditServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AuditServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AuditServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Lists audit records, newest first, one page at a time.
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: a bad page token
     * or filter), PERMISSION_DENIED (TOKEN_SCOPE).
     * </pre>
     */
    public dev.onebotgateway.v1.ListAuditRecordsResponse listAuditRecords(dev.onebotgateway.v1.ListAuditRecordsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListAuditRecordsMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service AuditService.
   * <pre>
   * The audit trail: every write the gateway performed or refused, and every
   * approval's change, kept durably where the archive keeps its messages
   * (PostgreSQL at `archive.url`, else `governance.sqlite3` in the data
   * directory) for `archive.retention_days`.
   * </pre>
   */
  public static final class AuditServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<AuditServiceFutureStub> {
    private AuditServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AuditServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AuditServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Lists audit records, newest first, one page at a time.
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: a bad page token
     * or filter), PERMISSION_DENIED (TOKEN_SCOPE).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.ListAuditRecordsResponse> listAuditRecords(
        dev.onebotgateway.v1.ListAuditRecordsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListAuditRecordsMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_LIST_AUDIT_RECORDS = 0;

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
        case METHODID_LIST_AUDIT_RECORDS:
          serviceImpl.listAuditRecords((dev.onebotgateway.v1.ListAuditRecordsRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ListAuditRecordsResponse>) responseObserver);
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
          getListAuditRecordsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.ListAuditRecordsRequest,
              dev.onebotgateway.v1.ListAuditRecordsResponse>(
                service, METHODID_LIST_AUDIT_RECORDS)))
        .build();
  }

  private static abstract class AuditServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    AuditServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.onebotgateway.v1.GovernanceService.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("AuditService");
    }
  }

  private static final class AuditServiceFileDescriptorSupplier
      extends AuditServiceBaseDescriptorSupplier {
    AuditServiceFileDescriptorSupplier() {}
  }

  private static final class AuditServiceMethodDescriptorSupplier
      extends AuditServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    AuditServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (AuditServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new AuditServiceFileDescriptorSupplier())
              .addMethod(getListAuditRecordsMethod())
              .build();
        }
      }
    }
    return result;
  }
}
