// Descriptors of the two non-gateway protos the client needs, built in code (the gateway's
// protos do not import them): grpc.health.v1 (Health/Check) and the google.rpc error details
// the gateway sends (ErrorInfo, RetryInfo, BadRequest). Field numbers and names follow
// grpc/health/v1/health.proto and google/rpc/error_details.proto.

import { create, createFileRegistry } from "@bufbuild/protobuf";
import type { Message } from "@bufbuild/protobuf";
import type { GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import {
  FieldDescriptorProto_Label as Label,
  FieldDescriptorProto_Type as Type,
  FileDescriptorProtoSchema,
  file_google_protobuf_duration,
} from "@bufbuild/protobuf/wkt";
import type { Duration } from "@bufbuild/protobuf/wkt";

const optional = Label.OPTIONAL;

const healthFile = create(FileDescriptorProtoSchema, {
  name: "grpc/health/v1/health.proto",
  package: "grpc.health.v1",
  syntax: "proto3",
  messageType: [
    {
      name: "HealthCheckRequest",
      field: [{ name: "service", jsonName: "service", number: 1, type: Type.STRING, label: optional }],
    },
    {
      name: "HealthCheckResponse",
      field: [
        {
          name: "status",
          jsonName: "status",
          number: 1,
          type: Type.ENUM,
          label: optional,
          typeName: ".grpc.health.v1.HealthCheckResponse.ServingStatus",
        },
      ],
      enumType: [
        {
          name: "ServingStatus",
          value: [
            { name: "UNKNOWN", number: 0 },
            { name: "SERVING", number: 1 },
            { name: "NOT_SERVING", number: 2 },
            { name: "SERVICE_UNKNOWN", number: 3 },
          ],
        },
      ],
    },
  ],
  service: [
    {
      name: "Health",
      method: [
        {
          name: "Check",
          inputType: ".grpc.health.v1.HealthCheckRequest",
          outputType: ".grpc.health.v1.HealthCheckResponse",
        },
      ],
    },
  ],
});

const healthRegistry = createFileRegistry(healthFile, () => undefined);

/** `grpc.health.v1.HealthCheckResponse.ServingStatus` names by number. */
export const SERVING_STATUS = ["UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN"] as const;

/** `grpc.health.v1.HealthCheckResponse`. */
export type HealthCheckResponse = Message<"grpc.health.v1.HealthCheckResponse"> & { status: number };

/** `grpc.health.v1.HealthCheckRequest`. */
export type HealthCheckRequest = Message<"grpc.health.v1.HealthCheckRequest"> & { service: string };

/** The `grpc.health.v1.Health` service (only `Check`). */
export const HealthService = healthRegistry.getService("grpc.health.v1.Health") as GenService<{
  check: {
    methodKind: "unary";
    input: GenMessage<HealthCheckRequest>;
    output: GenMessage<HealthCheckResponse>;
  };
}>;

const errorDetailsFile = create(FileDescriptorProtoSchema, {
  name: "google/rpc/error_details.proto",
  package: "google.rpc",
  syntax: "proto3",
  dependency: ["google/protobuf/duration.proto"],
  messageType: [
    {
      name: "ErrorInfo",
      field: [
        { name: "reason", jsonName: "reason", number: 1, type: Type.STRING, label: optional },
        { name: "domain", jsonName: "domain", number: 2, type: Type.STRING, label: optional },
        {
          name: "metadata",
          jsonName: "metadata",
          number: 3,
          type: Type.MESSAGE,
          label: Label.REPEATED,
          typeName: ".google.rpc.ErrorInfo.MetadataEntry",
        },
      ],
      nestedType: [
        {
          name: "MetadataEntry",
          field: [
            { name: "key", jsonName: "key", number: 1, type: Type.STRING, label: optional },
            { name: "value", jsonName: "value", number: 2, type: Type.STRING, label: optional },
          ],
          options: { mapEntry: true },
        },
      ],
    },
    {
      name: "RetryInfo",
      field: [
        {
          name: "retry_delay",
          jsonName: "retryDelay",
          number: 1,
          type: Type.MESSAGE,
          label: optional,
          typeName: ".google.protobuf.Duration",
        },
      ],
    },
    {
      name: "BadRequest",
      field: [
        {
          name: "field_violations",
          jsonName: "fieldViolations",
          number: 1,
          type: Type.MESSAGE,
          label: Label.REPEATED,
          typeName: ".google.rpc.BadRequest.FieldViolation",
        },
      ],
      nestedType: [
        {
          name: "FieldViolation",
          field: [
            { name: "field", jsonName: "field", number: 1, type: Type.STRING, label: optional },
            { name: "description", jsonName: "description", number: 2, type: Type.STRING, label: optional },
          ],
        },
      ],
    },
  ],
});

const errorRegistry = createFileRegistry(errorDetailsFile, (name) =>
  name === "google/protobuf/duration.proto" ? file_google_protobuf_duration : undefined,
);

/** `google.rpc.ErrorInfo`. */
export type ErrorInfo = Message<"google.rpc.ErrorInfo"> & {
  reason: string;
  domain: string;
  metadata: { [key: string]: string };
};
/** `google.rpc.RetryInfo`. */
export type RetryInfo = Message<"google.rpc.RetryInfo"> & { retryDelay?: Duration };
/** `google.rpc.BadRequest`. */
export type BadRequest = Message<"google.rpc.BadRequest"> & {
  fieldViolations: { field: string; description: string }[];
};

function message<T extends Message>(name: string): GenMessage<T> {
  const desc = errorRegistry.getMessage(name);
  if (desc === undefined) {
    throw new Error(`missing descriptor ${name}`);
  }
  return desc as GenMessage<T>;
}

/** Schema of `google.rpc.ErrorInfo`. */
export const ErrorInfoSchema = message<ErrorInfo>("google.rpc.ErrorInfo");
/** Schema of `google.rpc.RetryInfo`. */
export const RetryInfoSchema = message<RetryInfo>("google.rpc.RetryInfo");
/** Schema of `google.rpc.BadRequest`. */
export const BadRequestSchema = message<BadRequest>("google.rpc.BadRequest");
