package dev.onebotgateway.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Any;
import com.google.rpc.BadRequest;
import com.google.rpc.Code;
import com.google.rpc.ErrorInfo;
import com.google.rpc.RetryInfo;
import dev.onebotgateway.v1.ErrorReason;
import io.grpc.Status;
import io.grpc.protobuf.StatusProto;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GatewayExceptionTest {
  @Test
  void decodesErrorInfoRetryInfoAndBadRequest() {
    com.google.rpc.Status status =
        com.google.rpc.Status.newBuilder()
            .setCode(Code.UNAVAILABLE_VALUE)
            .setMessage("offline")
            .addDetails(
                Any.pack(
                    ErrorInfo.newBuilder()
                        .setReason("ACCOUNT_OFFLINE")
                        .setDomain(GatewayException.ERROR_DOMAIN)
                        .putMetadata("account_id", "a")
                        .build()))
            .addDetails(
                Any.pack(
                    RetryInfo.newBuilder()
                        .setRetryDelay(com.google.protobuf.Duration.newBuilder().setSeconds(1).setNanos(500_000_000))
                        .build()))
            .addDetails(
                Any.pack(
                    BadRequest.newBuilder()
                        .addFieldViolations(
                            BadRequest.FieldViolation.newBuilder().setField("group_id").setDescription("must be positive"))
                        .build()))
            .build();
    GatewayException err = GatewayException.from(StatusProto.toStatusRuntimeException(status));
    assertEquals(Status.Code.UNAVAILABLE, err.code());
    assertEquals("ACCOUNT_OFFLINE", err.reason().orElseThrow());
    assertEquals(ErrorReason.ERROR_REASON_ACCOUNT_OFFLINE, err.errorReason());
    assertEquals(Map.of("account_id", "a"), err.metadata());
    assertEquals(Duration.ofMillis(1500), err.retryDelay().orElseThrow());
    assertEquals(List.of(new GatewayException.FieldViolation("group_id", "must be positive")), err.fieldViolations());
    assertEquals("UNAVAILABLE (ACCOUNT_OFFLINE): offline [retry after 1500 ms]", err.getMessage());
  }

  @Test
  void plainStatusHasNoReason() {
    GatewayException err = GatewayException.from(Status.UNIMPLEMENTED.withDescription("nope").asRuntimeException());
    assertTrue(err.reason().isEmpty());
    assertEquals(ErrorReason.UNRECOGNIZED, err.errorReason());
    assertTrue(err.metadata().isEmpty());
  }

  @Test
  void settingsAreChecked() throws java.io.IOException {
    assertThrows(
        IllegalArgumentException.class,
        () -> Client.builder("http://127.0.0.1:1").caFile(Path.of("ca.pem")).build());
    assertThrows(IllegalArgumentException.class, () -> Client.builder("http://127.0.0.1:1").token("a\nb").build());
    try (Client client = Client.builder("http://127.0.0.1:1").build()) {
      assertThrows(
          java.io.IOException.class,
          () -> client.upload(Path.of("/nonexistent.png"), dev.onebotgateway.v1.MediaKind.MEDIA_KIND_IMAGE));
    }
  }
}
