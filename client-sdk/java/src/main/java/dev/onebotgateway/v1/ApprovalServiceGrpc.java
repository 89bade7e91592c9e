package dev.onebotgateway.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * Actions a `[policy]` rule held for a bot owner's approval
 * (`approval = "bot_owner"`).
 * A held action is stored durably and not executed; the call that asked for
 * it failed with FAILED_PRECONDITION, reason APPROVAL_PENDING, metadata
 * `approval_id`. The bot asked each owner in a private message; an owner
 * answers there (`同意 &lt;id&gt;` / `拒绝 &lt;id&gt;`, `approve &lt;id&gt;` / `reject &lt;id&gt;`,
 * or by quoting the bot's message with 同意 or 拒绝), or a UI decides with
 * DecideApproval. An approved action executes exactly once, also after a
 * restart; a rejected or expired one never.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class ApprovalServiceGrpc {

  private ApprovalServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "onebot.gateway.v1.ApprovalService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.ListApprovalsRequest,
      dev.onebotgateway.v1.ListApprovalsResponse> getListApprovalsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListApprovals",
      requestType = dev.onebotgateway.v1.ListApprovalsRequest.class,
      responseType = dev.onebotgateway.v1.ListApprovalsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.ListApprovalsRequest,
      dev.onebotgateway.v1.ListApprovalsResponse> getListApprovalsMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.ListApprovalsRequest, dev.onebotgateway.v1.ListApprovalsResponse> getListApprovalsMethod;
    if ((getListApprovalsMethod = ApprovalServiceGrpc.getListApprovalsMethod) == null) {
      synchronized (ApprovalServiceGrpc.class) {
        if ((getListApprovalsMethod = ApprovalServiceGrpc.getListApprovalsMethod) == null) {
          ApprovalServiceGrpc.getListApprovalsMethod = getListApprovalsMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.ListApprovalsRequest, dev.onebotgateway.v1.ListApprovalsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListApprovals"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.ListApprovalsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.ListApprovalsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ApprovalServiceMethodDescriptorSupplier("ListApprovals"))
              .build();
        }
      }
    }
    return getListApprovalsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.GetApprovalRequest,
      dev.onebotgateway.v1.GetApprovalResponse> getGetApprovalMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetApproval",
      requestType = dev.onebotgateway.v1.GetApprovalRequest.class,
      responseType = dev.onebotgateway.v1.GetApprovalResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.GetApprovalRequest,
      dev.onebotgateway.v1.GetApprovalResponse> getGetApprovalMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.GetApprovalRequest, dev.onebotgateway.v1.GetApprovalResponse> getGetApprovalMethod;
    if ((getGetApprovalMethod = ApprovalServiceGrpc.getGetApprovalMethod) == null) {
      synchronized (ApprovalServiceGrpc.class) {
        if ((getGetApprovalMethod = ApprovalServiceGrpc.getGetApprovalMethod) == null) {
          ApprovalServiceGrpc.getGetApprovalMethod = getGetApprovalMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.GetApprovalRequest, dev.onebotgateway.v1.GetApprovalResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetApproval"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.GetApprovalRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.GetApprovalResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ApprovalServiceMethodDescriptorSupplier("GetApproval"))
              .build();
        }
      }
    }
    return getGetApprovalMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.DecideApprovalRequest,
      dev.onebotgateway.v1.DecideApprovalResponse> getDecideApprovalMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DecideApproval",
      requestType = dev.onebotgateway.v1.DecideApprovalRequest.class,
      responseType = dev.onebotgateway.v1.DecideApprovalResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.DecideApprovalRequest,
      dev.onebotgateway.v1.DecideApprovalResponse> getDecideApprovalMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.DecideApprovalRequest, dev.onebotgateway.v1.DecideApprovalResponse> getDecideApprovalMethod;
    if ((getDecideApprovalMethod = ApprovalServiceGrpc.getDecideApprovalMethod) == null) {
      synchronized (ApprovalServiceGrpc.class) {
        if ((getDecideApprovalMethod = ApprovalServiceGrpc.getDecideApprovalMethod) == null) {
          ApprovalServiceGrpc.getDecideApprovalMethod = getDecideApprovalMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.DecideApprovalRequest, dev.onebotgateway.v1.DecideApprovalResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DecideApproval"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.DecideApprovalRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.DecideApprovalResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ApprovalServiceMethodDescriptorSupplier("DecideApproval"))
              .build();
        }
      }
    }
    return getDecideApprovalMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static ApprovalServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<ApprovalServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<ApprovalServiceStub>() {
        @java.lang.Override
        public ApprovalServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new ApprovalServiceStub(channel, callOptions);
        }
      };
    return ApprovalServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static ApprovalServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<ApprovalServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<ApprovalServiceBlockingV2Stub>() {
        @java.lang.Override
        public ApprovalServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new ApprovalServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return ApprovalServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static ApprovalServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<ApprovalServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<ApprovalServiceBlockingStub>() {
        @java.lang.Override
        public ApprovalServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new ApprovalServiceBlockingStub(channel, callOptions);
        }
      };
    return ApprovalServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static ApprovalServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<ApprovalServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<ApprovalServiceFutureStub>() {
        @java.lang.Override
        public ApprovalServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new ApprovalServiceFutureStub(channel, callOptions);
        }
      };
    return ApprovalServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * Actions a `[policy]` rule held for a bot owner's approval
   * (`approval = "bot_owner"`).
   * A held action is stored durably and not executed; the call that asked for
   * it failed with FAILED_PRECONDITION, reason APPROVAL_PENDING, metadata
   * `approval_id`. The bot asked each owner in a private message; an owner
   * answers there (`同意 &lt;id&gt;` / `拒绝 &lt;id&gt;`, `approve &lt;id&gt;` / `reject &lt;id&gt;`,
   * or by quoting the bot's message with 同意 or 拒绝), or a UI decides with
   * DecideApproval. An approved action executes exactly once, also after a
   * restart; a rejected or expired one never.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * Lists approvals, newest first.
     * Read-only. Errors: PERMISSION_DENIED (TOKEN_SCOPE: an account outside
     * the token's scope).
     * </pre>
     */
    default void listApprovals(dev.onebotgateway.v1.ListApprovalsRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ListApprovalsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListApprovalsMethod(), responseObserver);
    }

    /**
     * <pre>
     * One approval; with `wait`, once it is no longer pending or executing, or
     * when the wait is over, whichever comes first.
     * Read-only. Errors: NOT_FOUND (APPROVAL_NOT_FOUND), PERMISSION_DENIED
     * (TOKEN_SCOPE).
     * </pre>
     */
    default void getApproval(dev.onebotgateway.v1.GetApprovalRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.GetApprovalResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetApprovalMethod(), responseObserver);
    }

    /**
     * <pre>
     * Approves or rejects a pending approval, for a human's UI. Approving
     * executes the action before the call returns (its result is in the
     * response).
     * Needs a token with `approve = true` (or authentication off). Errors:
     * NOT_FOUND (APPROVAL_NOT_FOUND), FAILED_PRECONDITION (APPROVAL_DECIDED:
     * no longer pending), PERMISSION_DENIED (TOKEN_SCOPE: the token may not
     * approve).
     * </pre>
     */
    default void decideApproval(dev.onebotgateway.v1.DecideApprovalRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.DecideApprovalResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDecideApprovalMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service ApprovalService.
   * <pre>
   * Actions a `[policy]` rule held for a bot owner's approval
   * (`approval = "bot_owner"`).
   * A held action is stored durably and not executed; the call that asked for
   * it failed with FAILED_PRECONDITION, reason APPROVAL_PENDING, metadata
   * `approval_id`. The bot asked each owner in a private message; an owner
   * answers there (`同意 &lt;id&gt;` / `拒绝 &lt;id&gt;`, `approve &lt;id&gt;` / `reject &lt;id&gt;`,
   * or by quoting the bot's message with 同意 or 拒绝), or a UI decides with
   * DecideApproval. An approved action executes exactly once, also after a
   * restart; a rejected or expired one never.
   * </pre>
   */
  public static abstract class ApprovalServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return ApprovalServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service ApprovalService.
   * <pre>
   * Actions a `[policy]` rule held for a bot owner's approval
   * (`approval = "bot_owner"`).
   * A held action is stored durably and not executed; the call that asked for
   * it failed with FAILED_PRECONDITION, reason APPROVAL_PENDING, metadata
   * `approval_id`. The bot asked each owner in a private message; an owner
   * answers there (`同意 &lt;id&gt;` / `拒绝 &lt;id&gt;`, `approve &lt;id&gt;` / `reject &lt;id&gt;`,
   * or by quoting the bot's message with 同意 or 拒绝), or a UI decides with
   * DecideApproval. An approved action executes exactly once, also after a
   * restart; a rejected or expired one never.
   * </pre>
   */
  public static final class ApprovalServiceStub
      extends io.grpc.stub.AbstractAsyncStub<ApprovalServiceStub> {
    private ApprovalServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected ApprovalServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new ApprovalServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Lists approvals, newest first.
     * Read-only. Errors: PERMISSION_DENIED (TOKEN_SCOPE: an account outside
     * the token's scope).
     * </pre>
     */
    public void listApprovals(dev.onebotgateway.v1.ListApprovalsRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ListApprovalsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListApprovalsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * One approval; with `wait`, once it is no longer pending or executing, or
     * when the wait is over, whichever comes first.
     * Read-only. Errors: NOT_FOUND (APPROVAL_NOT_FOUND), PERMISSION_DENIED
     * (TOKEN_SCOPE).
     * </pre>
     */
    public void getApproval(dev.onebotgateway.v1.GetApprovalRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.GetApprovalResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetApprovalMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Approves or rejects a pending approval, for a human's UI. Approving
     * executes the action before the call returns (its result is in the
     * response).
     * Needs a token with `approve = true` (or authentication off). Errors:
     * NOT_FOUND (APPROVAL_NOT_FOUND), FAILED_PRECONDITION (APPROVAL_DECIDED:
     * no longer pending), PERMISSION_DENIED (TOKEN_SCOPE: the token may not
     * approve).
     * </pre>
     */
    public void decideApproval(dev.onebotgateway.v1.DecideApprovalRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.DecideApprovalResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDecideApprovalMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service ApprovalService.
   * <pre>
   * Actions a `[policy]` rule held for a bot owner's approval
   * (`approval = "bot_owner"`).
   * A held action is stored durably and not executed; the call that asked for
   * it failed with FAILED_PRECONDITION, reason APPROVAL_PENDING, metadata
   * `approval_id`. The bot asked each owner in a private message; an owner
   * answers there (`同意 &lt;id&gt;` / `拒绝 &lt;id&gt;`, `approve &lt;id&gt;` / `reject &lt;id&gt;`,
   * or by quoting the bot's message with 同意 or 拒绝), or a UI decides with
   * DecideApproval. An approved action executes exactly once, also after a
   * restart; a rejected or expired one never.
   * </pre>
   */
  public static final class ApprovalServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<ApprovalServiceBlockingV2Stub> {
    private ApprovalServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected ApprovalServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new ApprovalServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * Lists approvals, newest first.
     * Read-only. Errors: PERMISSION_DENIED (TOKEN_SCOPE: an account outside
     * the token's scope).
     * </pre>
     */
    public dev.onebotgateway.v1.ListApprovalsResponse listApprovals(dev.onebotgateway.v1.ListApprovalsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListApprovalsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * One approval; with `wait`, once it is no longer pending or executing, or
     * when the wait is over, whichever comes first.
     * Read-only. Errors: NOT_FOUND (APPROVAL_NOT_FOUND), PERMISSION_DENIED
     * (TOKEN_SCOPE).
     * </pre>
     */
    public dev.onebotgateway.v1.GetApprovalResponse getApproval(dev.onebotgateway.v1.GetApprovalRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetApprovalMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Approves or rejects a pending approval, for a human's UI. Approving
     * executes the action before the call returns (its result is in the
     * response).
     * Needs a token with `approve = true` (or authentication off). Errors:
     * NOT_FOUND (APPROVAL_NOT_FOUND), FAILED_PRECONDITION (APPROVAL_DECIDED:
     * no longer pending), PERMISSION_DENIED (TOKEN_SCOPE: the token may not
     * approve).
     * </pre>
     */
    public dev.onebotgateway.v1.DecideApprovalResponse decideApproval(dev.onebotgateway.v1.DecideApprovalRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getDecideApprovalMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service ApprovalService.
   * <pre>
   * Actions a `[policy]` rule held for a bot owner's approval
   * (`approval = "bot_owner"`).
   * A held action is stored durably and not executed; the call that asked for
   * it failed with FAILED_PRECONDITION, reason APPROVAL_PENDING, metadata
   * `approval_id`. The bot asked each owner in a private message; an owner
   * answers there (`同意 &lt;id&gt;` / `拒绝 &lt;id&gt;`, `approve &lt;id&gt;` / `reject &lt;id&gt;`,
   * or by quoting the bot's message with 同意 or 拒绝), or a UI decides with
   * DecideApproval. An approved action executes exactly once, also after a
   * restart; a rejected or expired one never.
   * </pre>
   */
  public static final class ApprovalServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<ApprovalServiceBlockingStub> {
    private ApprovalServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected ApprovalServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new ApprovalServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Lists approvals, newest first.
     * Read-only. Errors: PERMISSION_DENIED (TOKEN_SCOPE: an account outside
     * the token's scope).
     * </pre>
     */
    public dev.onebotgateway.v1.ListApprovalsResponse listApprovals(dev.onebotgateway.v1.ListApprovalsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListApprovalsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * One approval; with `wait`, once it is no longer pending or executing, or
     * when the wait is over, whichever comes first.
     * Read-only. Errors: NOT_FOUND (APPROVAL_NOT_FOUND), PERMISSION_DENIED
     * (TOKEN_SCOPE).
     * </pre>
     */
    public dev.onebotgateway.v1.GetApprovalResponse getApproval(dev.onebotgateway.v1.GetApprovalRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetApprovalMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Approves or rejects a pending approval, for a human's UI. Approving
     * executes the action before the call returns (its result is in the
     * response).
     * Needs a token with `approve = true` (or authentication off). Errors:
     * NOT_FOUND (APPROVAL_NOT_FOUND), FAILED_PRECONDITION (APPROVAL_DECIDED:
     * no longer pending), PERMISSION_DENIED (TOKEN_SCOPE: the token may not
     * approve).
     * </pre>
     */
    public dev.onebotgateway.v1.DecideApprovalResponse decideApproval(dev.onebotgateway.v1.DecideApprovalRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDecideApprovalMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service ApprovalService.
   * <pre>
   * Actions a `[policy]` rule held for a bot owner's approval
   * (`approval = "bot_owner"`).
   * A held action is stored durably and not executed; the call that asked for
   * it failed with FAILED_PRECONDITION, reason APPROVAL_PENDING, metadata
   * `approval_id`. The bot asked each owner in a private message; an owner
   * answers there (`同意 &lt;id&gt;` / `拒绝 &lt;id&gt;`, `approve &lt;id&gt;` / `reject &lt;id&gt;`,
   * or by quoting the bot's message with 同意 or 拒绝), or a UI decides with
   * DecideApproval. An approved action executes exactly once, also after a
   * restart; a rejected or expired one never.
   * </pre>
   */
  public static final class ApprovalServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<ApprovalServiceFutureStub> {
    private ApprovalServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected ApprovalServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new ApprovalServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Lists approvals, newest first.
     * Read-only. Errors: PERMISSION_DENIED (TOKEN_SCOPE: an account outside
     * the token's scope).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.ListApprovalsResponse> listApprovals(
        dev.onebotgateway.v1.ListApprovalsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListApprovalsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * One approval; with `wait`, once it is no longer pending or executing, or
     * when the wait is over, whichever comes first.
     * Read-only. Errors: NOT_FOUND (APPROVAL_NOT_FOUND), PERMISSION_DENIED
     * (TOKEN_SCOPE).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.GetApprovalResponse> getApproval(
        dev.onebotgateway.v1.GetApprovalRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetApprovalMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Approves or rejects a pending approval, for a human's UI. Approving
     * executes the action before the call returns (its result is in the
     * response).
     * Needs a token with `approve = true` (or authentication off). Errors:
     * NOT_FOUND (APPROVAL_NOT_FOUND), FAILED_PRECONDITION (APPROVAL_DECIDED:
     * no longer pending), PERMISSION_DENIED (TOKEN_SCOPE: the token may not
     * approve).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.DecideApprovalResponse> decideApproval(
        dev.onebotgateway.v1.DecideApprovalRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDecideApprovalMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_LIST_APPROVALS = 0;
  private static final int METHODID_GET_APPROVAL = 1;
  private static final int METHODID_DECIDE_APPROVAL = 2;

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
        case METHODID_LIST_APPROVALS:
          serviceImpl.listApprovals((dev.onebotgateway.v1.ListApprovalsRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ListApprovalsResponse>) responseObserver);
          break;
        case METHODID_GET_APPROVAL:
          serviceImpl.getApproval((dev.onebotgateway.v1.GetApprovalRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.GetApprovalResponse>) responseObserver);
          break;
        case METHODID_DECIDE_APPROVAL:
          serviceImpl.decideApproval((dev.onebotgateway.v1.DecideApprovalRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.DecideApprovalResponse>) responseObserver);
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
          getListApprovalsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.ListApprovalsRequest,
              dev.onebotgateway.v1.ListApprovalsResponse>(
                service, METHODID_LIST_APPROVALS)))
        .addMethod(
          getGetApprovalMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.GetApprovalRequest,
              dev.onebotgateway.v1.GetApprovalResponse>(
                service, METHODID_GET_APPROVAL)))
        .addMethod(
          getDecideApprovalMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.DecideApprovalRequest,
              dev.onebotgateway.v1.DecideApprovalResponse>(
                service, METHODID_DECIDE_APPROVAL)))
        .build();
  }

  private static abstract class ApprovalServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    ApprovalServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.onebotgateway.v1.GovernanceService.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("ApprovalService");
    }
  }

  private static final class ApprovalServiceFileDescriptorSupplier
      extends ApprovalServiceBaseDescriptorSupplier {
    ApprovalServiceFileDescriptorSupplier() {}
  }

  private static final class ApprovalServiceMethodDescriptorSupplier
      extends ApprovalServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    ApprovalServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (ApprovalServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new ApprovalServiceFileDescriptorSupplier())
              .addMethod(getListApprovalsMethod())
              .addMethod(getGetApprovalMethod())
              .addMethod(getDecideApprovalMethod())
              .build();
        }
      }
    }
    return result;
  }
}
