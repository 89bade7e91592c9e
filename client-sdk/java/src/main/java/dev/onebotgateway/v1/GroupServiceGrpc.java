package dev.onebotgateway.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * Group members, the account's groups, and pokes.
 * `account_id` empty means `default`; an unknown or unconfigured account fails
 * with FAILED_PRECONDITION, ACCOUNT_NOT_CONFIGURED, without touching any peer.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class GroupServiceGrpc {

  private GroupServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "onebot.gateway.v1.GroupService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.ListGroupMembersRequest,
      dev.onebotgateway.v1.ListGroupMembersResponse> getListGroupMembersMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListGroupMembers",
      requestType = dev.onebotgateway.v1.ListGroupMembersRequest.class,
      responseType = dev.onebotgateway.v1.ListGroupMembersResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.ListGroupMembersRequest,
      dev.onebotgateway.v1.ListGroupMembersResponse> getListGroupMembersMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.ListGroupMembersRequest, dev.onebotgateway.v1.ListGroupMembersResponse> getListGroupMembersMethod;
    if ((getListGroupMembersMethod = GroupServiceGrpc.getListGroupMembersMethod) == null) {
      synchronized (GroupServiceGrpc.class) {
        if ((getListGroupMembersMethod = GroupServiceGrpc.getListGroupMembersMethod) == null) {
          GroupServiceGrpc.getListGroupMembersMethod = getListGroupMembersMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.ListGroupMembersRequest, dev.onebotgateway.v1.ListGroupMembersResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListGroupMembers"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.ListGroupMembersRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.ListGroupMembersResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GroupServiceMethodDescriptorSupplier("ListGroupMembers"))
              .build();
        }
      }
    }
    return getListGroupMembersMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.ListGroupsRequest,
      dev.onebotgateway.v1.ListGroupsResponse> getListGroupsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListGroups",
      requestType = dev.onebotgateway.v1.ListGroupsRequest.class,
      responseType = dev.onebotgateway.v1.ListGroupsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.ListGroupsRequest,
      dev.onebotgateway.v1.ListGroupsResponse> getListGroupsMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.ListGroupsRequest, dev.onebotgateway.v1.ListGroupsResponse> getListGroupsMethod;
    if ((getListGroupsMethod = GroupServiceGrpc.getListGroupsMethod) == null) {
      synchronized (GroupServiceGrpc.class) {
        if ((getListGroupsMethod = GroupServiceGrpc.getListGroupsMethod) == null) {
          GroupServiceGrpc.getListGroupsMethod = getListGroupsMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.ListGroupsRequest, dev.onebotgateway.v1.ListGroupsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListGroups"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.ListGroupsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.ListGroupsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GroupServiceMethodDescriptorSupplier("ListGroups"))
              .build();
        }
      }
    }
    return getListGroupsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.PokeMemberRequest,
      dev.onebotgateway.v1.PokeMemberResponse> getPokeMemberMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "PokeMember",
      requestType = dev.onebotgateway.v1.PokeMemberRequest.class,
      responseType = dev.onebotgateway.v1.PokeMemberResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.PokeMemberRequest,
      dev.onebotgateway.v1.PokeMemberResponse> getPokeMemberMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.PokeMemberRequest, dev.onebotgateway.v1.PokeMemberResponse> getPokeMemberMethod;
    if ((getPokeMemberMethod = GroupServiceGrpc.getPokeMemberMethod) == null) {
      synchronized (GroupServiceGrpc.class) {
        if ((getPokeMemberMethod = GroupServiceGrpc.getPokeMemberMethod) == null) {
          GroupServiceGrpc.getPokeMemberMethod = getPokeMemberMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.PokeMemberRequest, dev.onebotgateway.v1.PokeMemberResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "PokeMember"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.PokeMemberRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.PokeMemberResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GroupServiceMethodDescriptorSupplier("PokeMember"))
              .build();
        }
      }
    }
    return getPokeMemberMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static GroupServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<GroupServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<GroupServiceStub>() {
        @java.lang.Override
        public GroupServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new GroupServiceStub(channel, callOptions);
        }
      };
    return GroupServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static GroupServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<GroupServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<GroupServiceBlockingV2Stub>() {
        @java.lang.Override
        public GroupServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new GroupServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return GroupServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static GroupServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<GroupServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<GroupServiceBlockingStub>() {
        @java.lang.Override
        public GroupServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new GroupServiceBlockingStub(channel, callOptions);
        }
      };
    return GroupServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static GroupServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<GroupServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<GroupServiceFutureStub>() {
        @java.lang.Override
        public GroupServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new GroupServiceFutureStub(channel, callOptions);
        }
      };
    return GroupServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * Group members, the account's groups, and pokes.
   * `account_id` empty means `default`; an unknown or unconfigured account fails
   * with FAILED_PRECONDITION, ACCOUNT_NOT_CONFIGURED, without touching any peer.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * Lists the members of a group, in the peer's order, at most `limit`.
     * Served from a per-group cache (TTL 60 s by default) unless `no_cache` is
     * true; member join/leave/card events invalidate the cache.
     * Read-only and idempotent. Errors: INVALID_ARGUMENT (INVALID_REQUEST:
     * group_id not positive), NOT_FOUND (GROUP_NOT_FOUND: the bot is not in the
     * group, by the peer's group list), FAILED_PRECONDITION
     * (ACCOUNT_NOT_CONFIGURED, ONEBOT_AUTH_FAILED), UNAVAILABLE
     * (ACCOUNT_OFFLINE), DEADLINE_EXCEEDED (ONEBOT_TIMEOUT), and the peer's own
     * failures (ONEBOT_ACTION_FAILED).
     * </pre>
     */
    default void listGroupMembers(dev.onebotgateway.v1.ListGroupMembersRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ListGroupMembersResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListGroupMembersMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists the groups this account may use: its whitelisted groups (the
     * `groups` setting) with names and member counts, or every group the bot
     * is in when no whitelist is set.
     * Read-only and idempotent. Errors as for ListGroupMembers.
     * </pre>
     */
    default void listGroups(dev.onebotgateway.v1.ListGroupsRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ListGroupsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListGroupsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Pokes (戳一戳) a member of a whitelisted group.
     * Not a message: never queued, not in history, rate limited on its own.
     * Uses the implementation's poke action (`group_poke`), or the `poke`
     * segment on go-cqhttp.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: user_id not positive;
     * GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED), NOT_FOUND
     * (GROUP_NOT_FOUND: a whitelisted group the bot is not in), UNAVAILABLE
     * (ACCOUNT_OFFLINE), UNIMPLEMENTED (POKE_UNSUPPORTED: e.g. NapCat without
     * its packet backend), RESOURCE_EXHAUSTED (RATE_LIMITED), and the peer's own
     * failures (ONEBOT_ACTION_FAILED).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService).
     * </pre>
     */
    default void pokeMember(dev.onebotgateway.v1.PokeMemberRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.PokeMemberResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getPokeMemberMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service GroupService.
   * <pre>
   * Group members, the account's groups, and pokes.
   * `account_id` empty means `default`; an unknown or unconfigured account fails
   * with FAILED_PRECONDITION, ACCOUNT_NOT_CONFIGURED, without touching any peer.
   * </pre>
   */
  public static abstract class GroupServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return GroupServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service GroupService.
   * <pre>
   * Group members, the account's groups, and pokes.
   * `account_id` empty means `default`; an unknown or unconfigured account fails
   * with FAILED_PRECONDITION, ACCOUNT_NOT_CONFIGURED, without touching any peer.
   * </pre>
   */
  public static final class GroupServiceStub
      extends io.grpc.stub.AbstractAsyncStub<GroupServiceStub> {
    private GroupServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected GroupServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new GroupServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Lists the members of a group, in the peer's order, at most `limit`.
     * Served from a per-group cache (TTL 60 s by default) unless `no_cache` is
     * true; member join/leave/card events invalidate the cache.
     * Read-only and idempotent. Errors: INVALID_ARGUMENT (INVALID_REQUEST:
     * group_id not positive), NOT_FOUND (GROUP_NOT_FOUND: the bot is not in the
     * group, by the peer's group list), FAILED_PRECONDITION
     * (ACCOUNT_NOT_CONFIGURED, ONEBOT_AUTH_FAILED), UNAVAILABLE
     * (ACCOUNT_OFFLINE), DEADLINE_EXCEEDED (ONEBOT_TIMEOUT), and the peer's own
     * failures (ONEBOT_ACTION_FAILED).
     * </pre>
     */
    public void listGroupMembers(dev.onebotgateway.v1.ListGroupMembersRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ListGroupMembersResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListGroupMembersMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists the groups this account may use: its whitelisted groups (the
     * `groups` setting) with names and member counts, or every group the bot
     * is in when no whitelist is set.
     * Read-only and idempotent. Errors as for ListGroupMembers.
     * </pre>
     */
    public void listGroups(dev.onebotgateway.v1.ListGroupsRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ListGroupsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListGroupsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Pokes (戳一戳) a member of a whitelisted group.
     * Not a message: never queued, not in history, rate limited on its own.
     * Uses the implementation's poke action (`group_poke`), or the `poke`
     * segment on go-cqhttp.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: user_id not positive;
     * GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED), NOT_FOUND
     * (GROUP_NOT_FOUND: a whitelisted group the bot is not in), UNAVAILABLE
     * (ACCOUNT_OFFLINE), UNIMPLEMENTED (POKE_UNSUPPORTED: e.g. NapCat without
     * its packet backend), RESOURCE_EXHAUSTED (RATE_LIMITED), and the peer's own
     * failures (ONEBOT_ACTION_FAILED).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService).
     * </pre>
     */
    public void pokeMember(dev.onebotgateway.v1.PokeMemberRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.PokeMemberResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getPokeMemberMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service GroupService.
   * <pre>
   * Group members, the account's groups, and pokes.
   * `account_id` empty means `default`; an unknown or unconfigured account fails
   * with FAILED_PRECONDITION, ACCOUNT_NOT_CONFIGURED, without touching any peer.
   * </pre>
   */
  public static final class GroupServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<GroupServiceBlockingV2Stub> {
    private GroupServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected GroupServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new GroupServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * Lists the members of a group, in the peer's order, at most `limit`.
     * Served from a per-group cache (TTL 60 s by default) unless `no_cache` is
     * true; member join/leave/card events invalidate the cache.
     * Read-only and idempotent. Errors: INVALID_ARGUMENT (INVALID_REQUEST:
     * group_id not positive), NOT_FOUND (GROUP_NOT_FOUND: the bot is not in the
     * group, by the peer's group list), FAILED_PRECONDITION
     * (ACCOUNT_NOT_CONFIGURED, ONEBOT_AUTH_FAILED), UNAVAILABLE
     * (ACCOUNT_OFFLINE), DEADLINE_EXCEEDED (ONEBOT_TIMEOUT), and the peer's own
     * failures (ONEBOT_ACTION_FAILED).
     * </pre>
     */
    public dev.onebotgateway.v1.ListGroupMembersResponse listGroupMembers(dev.onebotgateway.v1.ListGroupMembersRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListGroupMembersMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists the groups this account may use: its whitelisted groups (the
     * `groups` setting) with names and member counts, or every group the bot
     * is in when no whitelist is set.
     * Read-only and idempotent. Errors as for ListGroupMembers.
     * </pre>
     */
    public dev.onebotgateway.v1.ListGroupsResponse listGroups(dev.onebotgateway.v1.ListGroupsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListGroupsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Pokes (戳一戳) a member of a whitelisted group.
     * Not a message: never queued, not in history, rate limited on its own.
     * Uses the implementation's poke action (`group_poke`), or the `poke`
     * segment on go-cqhttp.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: user_id not positive;
     * GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED), NOT_FOUND
     * (GROUP_NOT_FOUND: a whitelisted group the bot is not in), UNAVAILABLE
     * (ACCOUNT_OFFLINE), UNIMPLEMENTED (POKE_UNSUPPORTED: e.g. NapCat without
     * its packet backend), RESOURCE_EXHAUSTED (RATE_LIMITED), and the peer's own
     * failures (ONEBOT_ACTION_FAILED).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService).
     * </pre>
     */
    public dev.onebotgateway.v1.PokeMemberResponse pokeMember(dev.onebotgateway.v1.PokeMemberRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getPokeMemberMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service GroupService.
   * <pre>
   * Group members, the account's groups, and pokes.
   * `account_id` empty means `default`; an unknown or unconfigured account fails
   * with FAILED_PRECONDITION, ACCOUNT_NOT_CONFIGURED, without touching any peer.
   * </pre>
   */
  public static final class GroupServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<GroupServiceBlockingStub> {
    private GroupServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected GroupServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new GroupServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Lists the members of a group, in the peer's order, at most `limit`.
     * Served from a per-group cache (TTL 60 s by default) unless `no_cache` is
     * true; member join/leave/card events invalidate the cache.
     * Read-only and idempotent. Errors: INVALID_ARGUMENT (INVALID_REQUEST:
     * group_id not positive), NOT_FOUND (GROUP_NOT_FOUND: the bot is not in the
     * group, by the peer's group list), FAILED_PRECONDITION
     * (ACCOUNT_NOT_CONFIGURED, ONEBOT_AUTH_FAILED), UNAVAILABLE
     * (ACCOUNT_OFFLINE), DEADLINE_EXCEEDED (ONEBOT_TIMEOUT), and the peer's own
     * failures (ONEBOT_ACTION_FAILED).
     * </pre>
     */
    public dev.onebotgateway.v1.ListGroupMembersResponse listGroupMembers(dev.onebotgateway.v1.ListGroupMembersRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListGroupMembersMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists the groups this account may use: its whitelisted groups (the
     * `groups` setting) with names and member counts, or every group the bot
     * is in when no whitelist is set.
     * Read-only and idempotent. Errors as for ListGroupMembers.
     * </pre>
     */
    public dev.onebotgateway.v1.ListGroupsResponse listGroups(dev.onebotgateway.v1.ListGroupsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListGroupsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Pokes (戳一戳) a member of a whitelisted group.
     * Not a message: never queued, not in history, rate limited on its own.
     * Uses the implementation's poke action (`group_poke`), or the `poke`
     * segment on go-cqhttp.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: user_id not positive;
     * GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED), NOT_FOUND
     * (GROUP_NOT_FOUND: a whitelisted group the bot is not in), UNAVAILABLE
     * (ACCOUNT_OFFLINE), UNIMPLEMENTED (POKE_UNSUPPORTED: e.g. NapCat without
     * its packet backend), RESOURCE_EXHAUSTED (RATE_LIMITED), and the peer's own
     * failures (ONEBOT_ACTION_FAILED).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService).
     * </pre>
     */
    public dev.onebotgateway.v1.PokeMemberResponse pokeMember(dev.onebotgateway.v1.PokeMemberRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getPokeMemberMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service GroupService.
   * <pre>
   * Group members, the account's groups, and pokes.
   * `account_id` empty means `default`; an unknown or unconfigured account fails
   * with FAILED_PRECONDITION, ACCOUNT_NOT_CONFIGURED, without touching any peer.
   * </pre>
   */
  public static final class GroupServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<GroupServiceFutureStub> {
    private GroupServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected GroupServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new GroupServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Lists the members of a group, in the peer's order, at most `limit`.
     * Served from a per-group cache (TTL 60 s by default) unless `no_cache` is
     * true; member join/leave/card events invalidate the cache.
     * Read-only and idempotent. Errors: INVALID_ARGUMENT (INVALID_REQUEST:
     * group_id not positive), NOT_FOUND (GROUP_NOT_FOUND: the bot is not in the
     * group, by the peer's group list), FAILED_PRECONDITION
     * (ACCOUNT_NOT_CONFIGURED, ONEBOT_AUTH_FAILED), UNAVAILABLE
     * (ACCOUNT_OFFLINE), DEADLINE_EXCEEDED (ONEBOT_TIMEOUT), and the peer's own
     * failures (ONEBOT_ACTION_FAILED).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.ListGroupMembersResponse> listGroupMembers(
        dev.onebotgateway.v1.ListGroupMembersRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListGroupMembersMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists the groups this account may use: its whitelisted groups (the
     * `groups` setting) with names and member counts, or every group the bot
     * is in when no whitelist is set.
     * Read-only and idempotent. Errors as for ListGroupMembers.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.ListGroupsResponse> listGroups(
        dev.onebotgateway.v1.ListGroupsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListGroupsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Pokes (戳一戳) a member of a whitelisted group.
     * Not a message: never queued, not in history, rate limited on its own.
     * Uses the implementation's poke action (`group_poke`), or the `poke`
     * segment on go-cqhttp.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST: user_id not positive;
     * GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED), NOT_FOUND
     * (GROUP_NOT_FOUND: a whitelisted group the bot is not in), UNAVAILABLE
     * (ACCOUNT_OFFLINE), UNIMPLEMENTED (POKE_UNSUPPORTED: e.g. NapCat without
     * its packet backend), RESOURCE_EXHAUSTED (RATE_LIMITED), and the peer's own
     * failures (ONEBOT_ACTION_FAILED).
     * With `on_behalf_of`, the `[policy]` rules decide by the requester's role
     * after the whitelist and the token's scope: PERMISSION_DENIED
     * (POLICY_DENIED) refuses it, FAILED_PRECONDITION (APPROVAL_PENDING,
     * metadata `approval_id`) holds it for a bot owner's approval
     * (ApprovalService). Rules apply without it too (role `none`). The call is
     * recorded in the audit trail (AuditService).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.PokeMemberResponse> pokeMember(
        dev.onebotgateway.v1.PokeMemberRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getPokeMemberMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_LIST_GROUP_MEMBERS = 0;
  private static final int METHODID_LIST_GROUPS = 1;
  private static final int METHODID_POKE_MEMBER = 2;

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
        case METHODID_LIST_GROUP_MEMBERS:
          serviceImpl.listGroupMembers((dev.onebotgateway.v1.ListGroupMembersRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ListGroupMembersResponse>) responseObserver);
          break;
        case METHODID_LIST_GROUPS:
          serviceImpl.listGroups((dev.onebotgateway.v1.ListGroupsRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ListGroupsResponse>) responseObserver);
          break;
        case METHODID_POKE_MEMBER:
          serviceImpl.pokeMember((dev.onebotgateway.v1.PokeMemberRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.PokeMemberResponse>) responseObserver);
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
          getListGroupMembersMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.ListGroupMembersRequest,
              dev.onebotgateway.v1.ListGroupMembersResponse>(
                service, METHODID_LIST_GROUP_MEMBERS)))
        .addMethod(
          getListGroupsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.ListGroupsRequest,
              dev.onebotgateway.v1.ListGroupsResponse>(
                service, METHODID_LIST_GROUPS)))
        .addMethod(
          getPokeMemberMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.PokeMemberRequest,
              dev.onebotgateway.v1.PokeMemberResponse>(
                service, METHODID_POKE_MEMBER)))
        .build();
  }

  private static abstract class GroupServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    GroupServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.onebotgateway.v1.GroupServiceOuterClass.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("GroupService");
    }
  }

  private static final class GroupServiceFileDescriptorSupplier
      extends GroupServiceBaseDescriptorSupplier {
    GroupServiceFileDescriptorSupplier() {}
  }

  private static final class GroupServiceMethodDescriptorSupplier
      extends GroupServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    GroupServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (GroupServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new GroupServiceFileDescriptorSupplier())
              .addMethod(getListGroupMembersMethod())
              .addMethod(getListGroupsMethod())
              .addMethod(getPokeMemberMethod())
              .build();
        }
      }
    }
    return result;
  }
}
