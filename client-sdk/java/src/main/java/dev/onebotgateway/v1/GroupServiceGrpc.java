package dev.onebotgateway.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * Group members, the account's groups, pokes, group files and moderation.
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

  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.ListGroupFilesRequest,
      dev.onebotgateway.v1.ListGroupFilesResponse> getListGroupFilesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListGroupFiles",
      requestType = dev.onebotgateway.v1.ListGroupFilesRequest.class,
      responseType = dev.onebotgateway.v1.ListGroupFilesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.ListGroupFilesRequest,
      dev.onebotgateway.v1.ListGroupFilesResponse> getListGroupFilesMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.ListGroupFilesRequest, dev.onebotgateway.v1.ListGroupFilesResponse> getListGroupFilesMethod;
    if ((getListGroupFilesMethod = GroupServiceGrpc.getListGroupFilesMethod) == null) {
      synchronized (GroupServiceGrpc.class) {
        if ((getListGroupFilesMethod = GroupServiceGrpc.getListGroupFilesMethod) == null) {
          GroupServiceGrpc.getListGroupFilesMethod = getListGroupFilesMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.ListGroupFilesRequest, dev.onebotgateway.v1.ListGroupFilesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListGroupFiles"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.ListGroupFilesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.ListGroupFilesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GroupServiceMethodDescriptorSupplier("ListGroupFiles"))
              .build();
        }
      }
    }
    return getListGroupFilesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.MuteMemberRequest,
      dev.onebotgateway.v1.MuteMemberResponse> getMuteMemberMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "MuteMember",
      requestType = dev.onebotgateway.v1.MuteMemberRequest.class,
      responseType = dev.onebotgateway.v1.MuteMemberResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.MuteMemberRequest,
      dev.onebotgateway.v1.MuteMemberResponse> getMuteMemberMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.MuteMemberRequest, dev.onebotgateway.v1.MuteMemberResponse> getMuteMemberMethod;
    if ((getMuteMemberMethod = GroupServiceGrpc.getMuteMemberMethod) == null) {
      synchronized (GroupServiceGrpc.class) {
        if ((getMuteMemberMethod = GroupServiceGrpc.getMuteMemberMethod) == null) {
          GroupServiceGrpc.getMuteMemberMethod = getMuteMemberMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.MuteMemberRequest, dev.onebotgateway.v1.MuteMemberResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "MuteMember"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.MuteMemberRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.MuteMemberResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GroupServiceMethodDescriptorSupplier("MuteMember"))
              .build();
        }
      }
    }
    return getMuteMemberMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.MuteAllRequest,
      dev.onebotgateway.v1.MuteAllResponse> getMuteAllMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "MuteAll",
      requestType = dev.onebotgateway.v1.MuteAllRequest.class,
      responseType = dev.onebotgateway.v1.MuteAllResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.MuteAllRequest,
      dev.onebotgateway.v1.MuteAllResponse> getMuteAllMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.MuteAllRequest, dev.onebotgateway.v1.MuteAllResponse> getMuteAllMethod;
    if ((getMuteAllMethod = GroupServiceGrpc.getMuteAllMethod) == null) {
      synchronized (GroupServiceGrpc.class) {
        if ((getMuteAllMethod = GroupServiceGrpc.getMuteAllMethod) == null) {
          GroupServiceGrpc.getMuteAllMethod = getMuteAllMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.MuteAllRequest, dev.onebotgateway.v1.MuteAllResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "MuteAll"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.MuteAllRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.MuteAllResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GroupServiceMethodDescriptorSupplier("MuteAll"))
              .build();
        }
      }
    }
    return getMuteAllMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.KickMemberRequest,
      dev.onebotgateway.v1.KickMemberResponse> getKickMemberMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "KickMember",
      requestType = dev.onebotgateway.v1.KickMemberRequest.class,
      responseType = dev.onebotgateway.v1.KickMemberResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.KickMemberRequest,
      dev.onebotgateway.v1.KickMemberResponse> getKickMemberMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.KickMemberRequest, dev.onebotgateway.v1.KickMemberResponse> getKickMemberMethod;
    if ((getKickMemberMethod = GroupServiceGrpc.getKickMemberMethod) == null) {
      synchronized (GroupServiceGrpc.class) {
        if ((getKickMemberMethod = GroupServiceGrpc.getKickMemberMethod) == null) {
          GroupServiceGrpc.getKickMemberMethod = getKickMemberMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.KickMemberRequest, dev.onebotgateway.v1.KickMemberResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "KickMember"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.KickMemberRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.KickMemberResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GroupServiceMethodDescriptorSupplier("KickMember"))
              .build();
        }
      }
    }
    return getKickMemberMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.onebotgateway.v1.SetMemberCardRequest,
      dev.onebotgateway.v1.SetMemberCardResponse> getSetMemberCardMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SetMemberCard",
      requestType = dev.onebotgateway.v1.SetMemberCardRequest.class,
      responseType = dev.onebotgateway.v1.SetMemberCardResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.onebotgateway.v1.SetMemberCardRequest,
      dev.onebotgateway.v1.SetMemberCardResponse> getSetMemberCardMethod() {
    io.grpc.MethodDescriptor<dev.onebotgateway.v1.SetMemberCardRequest, dev.onebotgateway.v1.SetMemberCardResponse> getSetMemberCardMethod;
    if ((getSetMemberCardMethod = GroupServiceGrpc.getSetMemberCardMethod) == null) {
      synchronized (GroupServiceGrpc.class) {
        if ((getSetMemberCardMethod = GroupServiceGrpc.getSetMemberCardMethod) == null) {
          GroupServiceGrpc.getSetMemberCardMethod = getSetMemberCardMethod =
              io.grpc.MethodDescriptor.<dev.onebotgateway.v1.SetMemberCardRequest, dev.onebotgateway.v1.SetMemberCardResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SetMemberCard"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.SetMemberCardRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.onebotgateway.v1.SetMemberCardResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GroupServiceMethodDescriptorSupplier("SetMemberCard"))
              .build();
        }
      }
    }
    return getSetMemberCardMethod;
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
   * Group members, the account's groups, pokes, group files and moderation.
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

    /**
     * <pre>
     * Lists one folder of a group's files (群文件): its sub-folders, then its
     * files, a page at a time. OneBot: `get_group_root_files` /
     * `get_group_files_by_folder` (NapCat lists at most the first 50 of a
     * folder, and no peer but Lagrange lists a sub-folder's sub-folders);
     * Milky: `get_group_files`.
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: a bad page_size
     * or page_token; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures.
     * </pre>
     */
    default void listGroupFiles(dev.onebotgateway.v1.ListGroupFilesRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ListGroupFilesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListGroupFilesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Mutes a member for `duration_secs` (禁言), or lifts the mute with 0.
     * OneBot: `set_group_ban` (the duration always sent: implementations'
     * defaults differ); Milky: `set_group_member_mute`.
     * Moderation: the bot must be the group's owner or an admin (an admin
     * target needs the owner), checked from the member list before the peer
     * is called (FAILED_PRECONDITION, BOT_NOT_ADMIN); the group's owner and
     * the bot itself are never targets (PERMISSION_DENIED, PROTECTED_MEMBER).
     * Refused unless a `[[policy.rules]]` entry names the action
     * (PERMISSION_DENIED, POLICY_DENIED, metadata `rule` = `none`); with a
     * rule, it decides by `on_behalf_of` as for sends, and may hold the call
     * for a bot owner's approval (FAILED_PRECONDITION, APPROVAL_PENDING).
     * Recorded in the audit trail. Other errors: INVALID_ARGUMENT
     * (INVALID_REQUEST; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures (Lagrange reports
     * success whatever happened).
     * Policy action: `mute`.
     * </pre>
     */
    default void muteMember(dev.onebotgateway.v1.MuteMemberRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.MuteMemberResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getMuteMemberMethod(), responseObserver);
    }

    /**
     * <pre>
     * Turns the whole-group mute (全员禁言) on or off. OneBot:
     * `set_group_whole_ban`; Milky: `set_group_whole_mute`.
     * Moderation: the bot must be the group's owner or an admin (an admin
     * target needs the owner), checked from the member list before the peer
     * is called (FAILED_PRECONDITION, BOT_NOT_ADMIN); the group's owner and
     * the bot itself are never targets (PERMISSION_DENIED, PROTECTED_MEMBER).
     * Refused unless a `[[policy.rules]]` entry names the action
     * (PERMISSION_DENIED, POLICY_DENIED, metadata `rule` = `none`); with a
     * rule, it decides by `on_behalf_of` as for sends, and may hold the call
     * for a bot owner's approval (FAILED_PRECONDITION, APPROVAL_PENDING).
     * Recorded in the audit trail. Other errors: INVALID_ARGUMENT
     * (INVALID_REQUEST; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures (Lagrange reports
     * success whatever happened).
     * Policy action: `mute_all`.
     * </pre>
     */
    default void muteAll(dev.onebotgateway.v1.MuteAllRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.MuteAllResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getMuteAllMethod(), responseObserver);
    }

    /**
     * <pre>
     * Removes a member from the group (踢出), optionally refusing their later
     * join requests. OneBot: `set_group_kick`; Milky: `kick_group_member`.
     * Moderation: the bot must be the group's owner or an admin (an admin
     * target needs the owner), checked from the member list before the peer
     * is called (FAILED_PRECONDITION, BOT_NOT_ADMIN); the group's owner and
     * the bot itself are never targets (PERMISSION_DENIED, PROTECTED_MEMBER).
     * Refused unless a `[[policy.rules]]` entry names the action
     * (PERMISSION_DENIED, POLICY_DENIED, metadata `rule` = `none`); with a
     * rule, it decides by `on_behalf_of` as for sends, and may hold the call
     * for a bot owner's approval (FAILED_PRECONDITION, APPROVAL_PENDING).
     * Recorded in the audit trail. Other errors: INVALID_ARGUMENT
     * (INVALID_REQUEST; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures (Lagrange reports
     * success whatever happened).
     * Policy action: `kick`.
     * </pre>
     */
    default void kickMember(dev.onebotgateway.v1.KickMemberRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.KickMemberResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getKickMemberMethod(), responseObserver);
    }

    /**
     * <pre>
     * Sets a member's group card (群名片); an empty card clears it. OneBot:
     * `set_group_card`; Milky: `set_group_member_card`.
     * Moderation: the bot must be the group's owner or an admin (an admin
     * target needs the owner), checked from the member list before the peer
     * is called (FAILED_PRECONDITION, BOT_NOT_ADMIN); the group's owner and
     * the bot itself are never targets (PERMISSION_DENIED, PROTECTED_MEMBER).
     * Refused unless a `[[policy.rules]]` entry names the action
     * (PERMISSION_DENIED, POLICY_DENIED, metadata `rule` = `none`); with a
     * rule, it decides by `on_behalf_of` as for sends, and may hold the call
     * for a bot owner's approval (FAILED_PRECONDITION, APPROVAL_PENDING).
     * Recorded in the audit trail. Other errors: INVALID_ARGUMENT
     * (INVALID_REQUEST; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures (Lagrange reports
     * success whatever happened).
     * Policy action: `set_card`.
     * </pre>
     */
    default void setMemberCard(dev.onebotgateway.v1.SetMemberCardRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.SetMemberCardResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSetMemberCardMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service GroupService.
   * <pre>
   * Group members, the account's groups, pokes, group files and moderation.
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
   * Group members, the account's groups, pokes, group files and moderation.
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

    /**
     * <pre>
     * Lists one folder of a group's files (群文件): its sub-folders, then its
     * files, a page at a time. OneBot: `get_group_root_files` /
     * `get_group_files_by_folder` (NapCat lists at most the first 50 of a
     * folder, and no peer but Lagrange lists a sub-folder's sub-folders);
     * Milky: `get_group_files`.
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: a bad page_size
     * or page_token; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures.
     * </pre>
     */
    public void listGroupFiles(dev.onebotgateway.v1.ListGroupFilesRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ListGroupFilesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListGroupFilesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Mutes a member for `duration_secs` (禁言), or lifts the mute with 0.
     * OneBot: `set_group_ban` (the duration always sent: implementations'
     * defaults differ); Milky: `set_group_member_mute`.
     * Moderation: the bot must be the group's owner or an admin (an admin
     * target needs the owner), checked from the member list before the peer
     * is called (FAILED_PRECONDITION, BOT_NOT_ADMIN); the group's owner and
     * the bot itself are never targets (PERMISSION_DENIED, PROTECTED_MEMBER).
     * Refused unless a `[[policy.rules]]` entry names the action
     * (PERMISSION_DENIED, POLICY_DENIED, metadata `rule` = `none`); with a
     * rule, it decides by `on_behalf_of` as for sends, and may hold the call
     * for a bot owner's approval (FAILED_PRECONDITION, APPROVAL_PENDING).
     * Recorded in the audit trail. Other errors: INVALID_ARGUMENT
     * (INVALID_REQUEST; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures (Lagrange reports
     * success whatever happened).
     * Policy action: `mute`.
     * </pre>
     */
    public void muteMember(dev.onebotgateway.v1.MuteMemberRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.MuteMemberResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getMuteMemberMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Turns the whole-group mute (全员禁言) on or off. OneBot:
     * `set_group_whole_ban`; Milky: `set_group_whole_mute`.
     * Moderation: the bot must be the group's owner or an admin (an admin
     * target needs the owner), checked from the member list before the peer
     * is called (FAILED_PRECONDITION, BOT_NOT_ADMIN); the group's owner and
     * the bot itself are never targets (PERMISSION_DENIED, PROTECTED_MEMBER).
     * Refused unless a `[[policy.rules]]` entry names the action
     * (PERMISSION_DENIED, POLICY_DENIED, metadata `rule` = `none`); with a
     * rule, it decides by `on_behalf_of` as for sends, and may hold the call
     * for a bot owner's approval (FAILED_PRECONDITION, APPROVAL_PENDING).
     * Recorded in the audit trail. Other errors: INVALID_ARGUMENT
     * (INVALID_REQUEST; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures (Lagrange reports
     * success whatever happened).
     * Policy action: `mute_all`.
     * </pre>
     */
    public void muteAll(dev.onebotgateway.v1.MuteAllRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.MuteAllResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getMuteAllMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Removes a member from the group (踢出), optionally refusing their later
     * join requests. OneBot: `set_group_kick`; Milky: `kick_group_member`.
     * Moderation: the bot must be the group's owner or an admin (an admin
     * target needs the owner), checked from the member list before the peer
     * is called (FAILED_PRECONDITION, BOT_NOT_ADMIN); the group's owner and
     * the bot itself are never targets (PERMISSION_DENIED, PROTECTED_MEMBER).
     * Refused unless a `[[policy.rules]]` entry names the action
     * (PERMISSION_DENIED, POLICY_DENIED, metadata `rule` = `none`); with a
     * rule, it decides by `on_behalf_of` as for sends, and may hold the call
     * for a bot owner's approval (FAILED_PRECONDITION, APPROVAL_PENDING).
     * Recorded in the audit trail. Other errors: INVALID_ARGUMENT
     * (INVALID_REQUEST; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures (Lagrange reports
     * success whatever happened).
     * Policy action: `kick`.
     * </pre>
     */
    public void kickMember(dev.onebotgateway.v1.KickMemberRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.KickMemberResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getKickMemberMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Sets a member's group card (群名片); an empty card clears it. OneBot:
     * `set_group_card`; Milky: `set_group_member_card`.
     * Moderation: the bot must be the group's owner or an admin (an admin
     * target needs the owner), checked from the member list before the peer
     * is called (FAILED_PRECONDITION, BOT_NOT_ADMIN); the group's owner and
     * the bot itself are never targets (PERMISSION_DENIED, PROTECTED_MEMBER).
     * Refused unless a `[[policy.rules]]` entry names the action
     * (PERMISSION_DENIED, POLICY_DENIED, metadata `rule` = `none`); with a
     * rule, it decides by `on_behalf_of` as for sends, and may hold the call
     * for a bot owner's approval (FAILED_PRECONDITION, APPROVAL_PENDING).
     * Recorded in the audit trail. Other errors: INVALID_ARGUMENT
     * (INVALID_REQUEST; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures (Lagrange reports
     * success whatever happened).
     * Policy action: `set_card`.
     * </pre>
     */
    public void setMemberCard(dev.onebotgateway.v1.SetMemberCardRequest request,
        io.grpc.stub.StreamObserver<dev.onebotgateway.v1.SetMemberCardResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSetMemberCardMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service GroupService.
   * <pre>
   * Group members, the account's groups, pokes, group files and moderation.
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

    /**
     * <pre>
     * Lists one folder of a group's files (群文件): its sub-folders, then its
     * files, a page at a time. OneBot: `get_group_root_files` /
     * `get_group_files_by_folder` (NapCat lists at most the first 50 of a
     * folder, and no peer but Lagrange lists a sub-folder's sub-folders);
     * Milky: `get_group_files`.
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: a bad page_size
     * or page_token; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures.
     * </pre>
     */
    public dev.onebotgateway.v1.ListGroupFilesResponse listGroupFiles(dev.onebotgateway.v1.ListGroupFilesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListGroupFilesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Mutes a member for `duration_secs` (禁言), or lifts the mute with 0.
     * OneBot: `set_group_ban` (the duration always sent: implementations'
     * defaults differ); Milky: `set_group_member_mute`.
     * Moderation: the bot must be the group's owner or an admin (an admin
     * target needs the owner), checked from the member list before the peer
     * is called (FAILED_PRECONDITION, BOT_NOT_ADMIN); the group's owner and
     * the bot itself are never targets (PERMISSION_DENIED, PROTECTED_MEMBER).
     * Refused unless a `[[policy.rules]]` entry names the action
     * (PERMISSION_DENIED, POLICY_DENIED, metadata `rule` = `none`); with a
     * rule, it decides by `on_behalf_of` as for sends, and may hold the call
     * for a bot owner's approval (FAILED_PRECONDITION, APPROVAL_PENDING).
     * Recorded in the audit trail. Other errors: INVALID_ARGUMENT
     * (INVALID_REQUEST; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures (Lagrange reports
     * success whatever happened).
     * Policy action: `mute`.
     * </pre>
     */
    public dev.onebotgateway.v1.MuteMemberResponse muteMember(dev.onebotgateway.v1.MuteMemberRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getMuteMemberMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Turns the whole-group mute (全员禁言) on or off. OneBot:
     * `set_group_whole_ban`; Milky: `set_group_whole_mute`.
     * Moderation: the bot must be the group's owner or an admin (an admin
     * target needs the owner), checked from the member list before the peer
     * is called (FAILED_PRECONDITION, BOT_NOT_ADMIN); the group's owner and
     * the bot itself are never targets (PERMISSION_DENIED, PROTECTED_MEMBER).
     * Refused unless a `[[policy.rules]]` entry names the action
     * (PERMISSION_DENIED, POLICY_DENIED, metadata `rule` = `none`); with a
     * rule, it decides by `on_behalf_of` as for sends, and may hold the call
     * for a bot owner's approval (FAILED_PRECONDITION, APPROVAL_PENDING).
     * Recorded in the audit trail. Other errors: INVALID_ARGUMENT
     * (INVALID_REQUEST; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures (Lagrange reports
     * success whatever happened).
     * Policy action: `mute_all`.
     * </pre>
     */
    public dev.onebotgateway.v1.MuteAllResponse muteAll(dev.onebotgateway.v1.MuteAllRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getMuteAllMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Removes a member from the group (踢出), optionally refusing their later
     * join requests. OneBot: `set_group_kick`; Milky: `kick_group_member`.
     * Moderation: the bot must be the group's owner or an admin (an admin
     * target needs the owner), checked from the member list before the peer
     * is called (FAILED_PRECONDITION, BOT_NOT_ADMIN); the group's owner and
     * the bot itself are never targets (PERMISSION_DENIED, PROTECTED_MEMBER).
     * Refused unless a `[[policy.rules]]` entry names the action
     * (PERMISSION_DENIED, POLICY_DENIED, metadata `rule` = `none`); with a
     * rule, it decides by `on_behalf_of` as for sends, and may hold the call
     * for a bot owner's approval (FAILED_PRECONDITION, APPROVAL_PENDING).
     * Recorded in the audit trail. Other errors: INVALID_ARGUMENT
     * (INVALID_REQUEST; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures (Lagrange reports
     * success whatever happened).
     * Policy action: `kick`.
     * </pre>
     */
    public dev.onebotgateway.v1.KickMemberResponse kickMember(dev.onebotgateway.v1.KickMemberRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getKickMemberMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Sets a member's group card (群名片); an empty card clears it. OneBot:
     * `set_group_card`; Milky: `set_group_member_card`.
     * Moderation: the bot must be the group's owner or an admin (an admin
     * target needs the owner), checked from the member list before the peer
     * is called (FAILED_PRECONDITION, BOT_NOT_ADMIN); the group's owner and
     * the bot itself are never targets (PERMISSION_DENIED, PROTECTED_MEMBER).
     * Refused unless a `[[policy.rules]]` entry names the action
     * (PERMISSION_DENIED, POLICY_DENIED, metadata `rule` = `none`); with a
     * rule, it decides by `on_behalf_of` as for sends, and may hold the call
     * for a bot owner's approval (FAILED_PRECONDITION, APPROVAL_PENDING).
     * Recorded in the audit trail. Other errors: INVALID_ARGUMENT
     * (INVALID_REQUEST; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures (Lagrange reports
     * success whatever happened).
     * Policy action: `set_card`.
     * </pre>
     */
    public dev.onebotgateway.v1.SetMemberCardResponse setMemberCard(dev.onebotgateway.v1.SetMemberCardRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getSetMemberCardMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service GroupService.
   * <pre>
   * Group members, the account's groups, pokes, group files and moderation.
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

    /**
     * <pre>
     * Lists one folder of a group's files (群文件): its sub-folders, then its
     * files, a page at a time. OneBot: `get_group_root_files` /
     * `get_group_files_by_folder` (NapCat lists at most the first 50 of a
     * folder, and no peer but Lagrange lists a sub-folder's sub-folders);
     * Milky: `get_group_files`.
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: a bad page_size
     * or page_token; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures.
     * </pre>
     */
    public dev.onebotgateway.v1.ListGroupFilesResponse listGroupFiles(dev.onebotgateway.v1.ListGroupFilesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListGroupFilesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Mutes a member for `duration_secs` (禁言), or lifts the mute with 0.
     * OneBot: `set_group_ban` (the duration always sent: implementations'
     * defaults differ); Milky: `set_group_member_mute`.
     * Moderation: the bot must be the group's owner or an admin (an admin
     * target needs the owner), checked from the member list before the peer
     * is called (FAILED_PRECONDITION, BOT_NOT_ADMIN); the group's owner and
     * the bot itself are never targets (PERMISSION_DENIED, PROTECTED_MEMBER).
     * Refused unless a `[[policy.rules]]` entry names the action
     * (PERMISSION_DENIED, POLICY_DENIED, metadata `rule` = `none`); with a
     * rule, it decides by `on_behalf_of` as for sends, and may hold the call
     * for a bot owner's approval (FAILED_PRECONDITION, APPROVAL_PENDING).
     * Recorded in the audit trail. Other errors: INVALID_ARGUMENT
     * (INVALID_REQUEST; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures (Lagrange reports
     * success whatever happened).
     * Policy action: `mute`.
     * </pre>
     */
    public dev.onebotgateway.v1.MuteMemberResponse muteMember(dev.onebotgateway.v1.MuteMemberRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getMuteMemberMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Turns the whole-group mute (全员禁言) on or off. OneBot:
     * `set_group_whole_ban`; Milky: `set_group_whole_mute`.
     * Moderation: the bot must be the group's owner or an admin (an admin
     * target needs the owner), checked from the member list before the peer
     * is called (FAILED_PRECONDITION, BOT_NOT_ADMIN); the group's owner and
     * the bot itself are never targets (PERMISSION_DENIED, PROTECTED_MEMBER).
     * Refused unless a `[[policy.rules]]` entry names the action
     * (PERMISSION_DENIED, POLICY_DENIED, metadata `rule` = `none`); with a
     * rule, it decides by `on_behalf_of` as for sends, and may hold the call
     * for a bot owner's approval (FAILED_PRECONDITION, APPROVAL_PENDING).
     * Recorded in the audit trail. Other errors: INVALID_ARGUMENT
     * (INVALID_REQUEST; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures (Lagrange reports
     * success whatever happened).
     * Policy action: `mute_all`.
     * </pre>
     */
    public dev.onebotgateway.v1.MuteAllResponse muteAll(dev.onebotgateway.v1.MuteAllRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getMuteAllMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Removes a member from the group (踢出), optionally refusing their later
     * join requests. OneBot: `set_group_kick`; Milky: `kick_group_member`.
     * Moderation: the bot must be the group's owner or an admin (an admin
     * target needs the owner), checked from the member list before the peer
     * is called (FAILED_PRECONDITION, BOT_NOT_ADMIN); the group's owner and
     * the bot itself are never targets (PERMISSION_DENIED, PROTECTED_MEMBER).
     * Refused unless a `[[policy.rules]]` entry names the action
     * (PERMISSION_DENIED, POLICY_DENIED, metadata `rule` = `none`); with a
     * rule, it decides by `on_behalf_of` as for sends, and may hold the call
     * for a bot owner's approval (FAILED_PRECONDITION, APPROVAL_PENDING).
     * Recorded in the audit trail. Other errors: INVALID_ARGUMENT
     * (INVALID_REQUEST; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures (Lagrange reports
     * success whatever happened).
     * Policy action: `kick`.
     * </pre>
     */
    public dev.onebotgateway.v1.KickMemberResponse kickMember(dev.onebotgateway.v1.KickMemberRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getKickMemberMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Sets a member's group card (群名片); an empty card clears it. OneBot:
     * `set_group_card`; Milky: `set_group_member_card`.
     * Moderation: the bot must be the group's owner or an admin (an admin
     * target needs the owner), checked from the member list before the peer
     * is called (FAILED_PRECONDITION, BOT_NOT_ADMIN); the group's owner and
     * the bot itself are never targets (PERMISSION_DENIED, PROTECTED_MEMBER).
     * Refused unless a `[[policy.rules]]` entry names the action
     * (PERMISSION_DENIED, POLICY_DENIED, metadata `rule` = `none`); with a
     * rule, it decides by `on_behalf_of` as for sends, and may hold the call
     * for a bot owner's approval (FAILED_PRECONDITION, APPROVAL_PENDING).
     * Recorded in the audit trail. Other errors: INVALID_ARGUMENT
     * (INVALID_REQUEST; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures (Lagrange reports
     * success whatever happened).
     * Policy action: `set_card`.
     * </pre>
     */
    public dev.onebotgateway.v1.SetMemberCardResponse setMemberCard(dev.onebotgateway.v1.SetMemberCardRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSetMemberCardMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service GroupService.
   * <pre>
   * Group members, the account's groups, pokes, group files and moderation.
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

    /**
     * <pre>
     * Lists one folder of a group's files (群文件): its sub-folders, then its
     * files, a page at a time. OneBot: `get_group_root_files` /
     * `get_group_files_by_folder` (NapCat lists at most the first 50 of a
     * folder, and no peer but Lagrange lists a sub-folder's sub-folders);
     * Milky: `get_group_files`.
     * Read-only. Errors: INVALID_ARGUMENT (INVALID_REQUEST: a bad page_size
     * or page_token; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.ListGroupFilesResponse> listGroupFiles(
        dev.onebotgateway.v1.ListGroupFilesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListGroupFilesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Mutes a member for `duration_secs` (禁言), or lifts the mute with 0.
     * OneBot: `set_group_ban` (the duration always sent: implementations'
     * defaults differ); Milky: `set_group_member_mute`.
     * Moderation: the bot must be the group's owner or an admin (an admin
     * target needs the owner), checked from the member list before the peer
     * is called (FAILED_PRECONDITION, BOT_NOT_ADMIN); the group's owner and
     * the bot itself are never targets (PERMISSION_DENIED, PROTECTED_MEMBER).
     * Refused unless a `[[policy.rules]]` entry names the action
     * (PERMISSION_DENIED, POLICY_DENIED, metadata `rule` = `none`); with a
     * rule, it decides by `on_behalf_of` as for sends, and may hold the call
     * for a bot owner's approval (FAILED_PRECONDITION, APPROVAL_PENDING).
     * Recorded in the audit trail. Other errors: INVALID_ARGUMENT
     * (INVALID_REQUEST; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures (Lagrange reports
     * success whatever happened).
     * Policy action: `mute`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.MuteMemberResponse> muteMember(
        dev.onebotgateway.v1.MuteMemberRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getMuteMemberMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Turns the whole-group mute (全员禁言) on or off. OneBot:
     * `set_group_whole_ban`; Milky: `set_group_whole_mute`.
     * Moderation: the bot must be the group's owner or an admin (an admin
     * target needs the owner), checked from the member list before the peer
     * is called (FAILED_PRECONDITION, BOT_NOT_ADMIN); the group's owner and
     * the bot itself are never targets (PERMISSION_DENIED, PROTECTED_MEMBER).
     * Refused unless a `[[policy.rules]]` entry names the action
     * (PERMISSION_DENIED, POLICY_DENIED, metadata `rule` = `none`); with a
     * rule, it decides by `on_behalf_of` as for sends, and may hold the call
     * for a bot owner's approval (FAILED_PRECONDITION, APPROVAL_PENDING).
     * Recorded in the audit trail. Other errors: INVALID_ARGUMENT
     * (INVALID_REQUEST; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures (Lagrange reports
     * success whatever happened).
     * Policy action: `mute_all`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.MuteAllResponse> muteAll(
        dev.onebotgateway.v1.MuteAllRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getMuteAllMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Removes a member from the group (踢出), optionally refusing their later
     * join requests. OneBot: `set_group_kick`; Milky: `kick_group_member`.
     * Moderation: the bot must be the group's owner or an admin (an admin
     * target needs the owner), checked from the member list before the peer
     * is called (FAILED_PRECONDITION, BOT_NOT_ADMIN); the group's owner and
     * the bot itself are never targets (PERMISSION_DENIED, PROTECTED_MEMBER).
     * Refused unless a `[[policy.rules]]` entry names the action
     * (PERMISSION_DENIED, POLICY_DENIED, metadata `rule` = `none`); with a
     * rule, it decides by `on_behalf_of` as for sends, and may hold the call
     * for a bot owner's approval (FAILED_PRECONDITION, APPROVAL_PENDING).
     * Recorded in the audit trail. Other errors: INVALID_ARGUMENT
     * (INVALID_REQUEST; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures (Lagrange reports
     * success whatever happened).
     * Policy action: `kick`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.KickMemberResponse> kickMember(
        dev.onebotgateway.v1.KickMemberRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getKickMemberMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Sets a member's group card (群名片); an empty card clears it. OneBot:
     * `set_group_card`; Milky: `set_group_member_card`.
     * Moderation: the bot must be the group's owner or an admin (an admin
     * target needs the owner), checked from the member list before the peer
     * is called (FAILED_PRECONDITION, BOT_NOT_ADMIN); the group's owner and
     * the bot itself are never targets (PERMISSION_DENIED, PROTECTED_MEMBER).
     * Refused unless a `[[policy.rules]]` entry names the action
     * (PERMISSION_DENIED, POLICY_DENIED, metadata `rule` = `none`); with a
     * rule, it decides by `on_behalf_of` as for sends, and may hold the call
     * for a bot owner's approval (FAILED_PRECONDITION, APPROVAL_PENDING).
     * Recorded in the audit trail. Other errors: INVALID_ARGUMENT
     * (INVALID_REQUEST; GROUP_REQUIRED), PERMISSION_DENIED (GROUP_NOT_ALLOWED,
     * TOKEN_SCOPE), NOT_FOUND (GROUP_NOT_FOUND), UNAVAILABLE
     * (ACCOUNT_OFFLINE), and the peer's own failures (Lagrange reports
     * success whatever happened).
     * Policy action: `set_card`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.onebotgateway.v1.SetMemberCardResponse> setMemberCard(
        dev.onebotgateway.v1.SetMemberCardRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSetMemberCardMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_LIST_GROUP_MEMBERS = 0;
  private static final int METHODID_LIST_GROUPS = 1;
  private static final int METHODID_POKE_MEMBER = 2;
  private static final int METHODID_LIST_GROUP_FILES = 3;
  private static final int METHODID_MUTE_MEMBER = 4;
  private static final int METHODID_MUTE_ALL = 5;
  private static final int METHODID_KICK_MEMBER = 6;
  private static final int METHODID_SET_MEMBER_CARD = 7;

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
        case METHODID_LIST_GROUP_FILES:
          serviceImpl.listGroupFiles((dev.onebotgateway.v1.ListGroupFilesRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.ListGroupFilesResponse>) responseObserver);
          break;
        case METHODID_MUTE_MEMBER:
          serviceImpl.muteMember((dev.onebotgateway.v1.MuteMemberRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.MuteMemberResponse>) responseObserver);
          break;
        case METHODID_MUTE_ALL:
          serviceImpl.muteAll((dev.onebotgateway.v1.MuteAllRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.MuteAllResponse>) responseObserver);
          break;
        case METHODID_KICK_MEMBER:
          serviceImpl.kickMember((dev.onebotgateway.v1.KickMemberRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.KickMemberResponse>) responseObserver);
          break;
        case METHODID_SET_MEMBER_CARD:
          serviceImpl.setMemberCard((dev.onebotgateway.v1.SetMemberCardRequest) request,
              (io.grpc.stub.StreamObserver<dev.onebotgateway.v1.SetMemberCardResponse>) responseObserver);
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
        .addMethod(
          getListGroupFilesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.ListGroupFilesRequest,
              dev.onebotgateway.v1.ListGroupFilesResponse>(
                service, METHODID_LIST_GROUP_FILES)))
        .addMethod(
          getMuteMemberMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.MuteMemberRequest,
              dev.onebotgateway.v1.MuteMemberResponse>(
                service, METHODID_MUTE_MEMBER)))
        .addMethod(
          getMuteAllMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.MuteAllRequest,
              dev.onebotgateway.v1.MuteAllResponse>(
                service, METHODID_MUTE_ALL)))
        .addMethod(
          getKickMemberMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.KickMemberRequest,
              dev.onebotgateway.v1.KickMemberResponse>(
                service, METHODID_KICK_MEMBER)))
        .addMethod(
          getSetMemberCardMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.onebotgateway.v1.SetMemberCardRequest,
              dev.onebotgateway.v1.SetMemberCardResponse>(
                service, METHODID_SET_MEMBER_CARD)))
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
              .addMethod(getListGroupFilesMethod())
              .addMethod(getMuteMemberMethod())
              .addMethod(getMuteAllMethod())
              .addMethod(getKickMemberMethod())
              .addMethod(getSetMemberCardMethod())
              .build();
        }
      }
    }
    return result;
  }
}
