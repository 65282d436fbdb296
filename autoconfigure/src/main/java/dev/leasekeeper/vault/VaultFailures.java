package dev.leasekeeper.vault;

import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import dev.leasekeeper.core.LeaseSourceException;

import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClientResponseException;

/**
 * Classifies what went wrong in a call to Vault, as VAULT_SEMANTICS.md §2 says, by
 * message before status: lease messages and "past the max TTL" are permanent for that
 * lease whatever the status, then 403 is the token, 429, 412, 5xx except 501 and I/O
 * errors are transient. Messages carry Vault's error text (never a secret) and never the
 * request.
 *
 * @author Leasekeeper
 * @since 0.1.0
 */
public final class VaultFailures {

	private static final JsonMapper json = JsonMapper.builder().build();

	private VaultFailures() {
	}

	/**
	 * Classify a failure of a call to Vault.
	 * @param what what was being done, such as {@code renew database/creds/orders}
	 * @param failure what the call threw
	 * @return the classified exception
	 */
	public static LeaseSourceException classify(String what, Throwable failure) {
		if (failure instanceof LeaseSourceException classified) {
			return classified;
		}
		RestClientResponseException response = find(failure, RestClientResponseException.class);
		if (response != null) {
			return fromStatus(what, response.getStatusCode().value(), errors(response.getResponseBodyAsString()));
		}
		if (find(failure, SocketTimeoutException.class) != null || find(failure, HttpTimeoutException.class) != null
				|| find(failure, InterruptedIOException.class) != null) {
			return LeaseSourceException.transientFailure("timeout", what + ": Vault did not answer in time", null);
		}
		if (failure instanceof ResourceAccessException || find(failure, java.io.IOException.class) != null) {
			return LeaseSourceException.transientFailure("io",
					what + ": cannot reach Vault (" + rootCause(failure).getClass().getSimpleName() + ")", null);
		}
		return LeaseSourceException.transientFailure("unexpected",
				what + ": unexpected failure (" + failure.getClass().getSimpleName() + ")", null);
	}

	/**
	 * Classify a Vault answer by its error messages first, then by its status: a lease
	 * message is permanent whatever status carries it (a {@code renew-self} in the last
	 * sub-second before a token's max TTL can answer 500 with {@code past the max TTL}
	 * inside a multierror, and the database engine wraps the same message), so a client
	 * that retried every 5xx would retry a dead lease until it expired. Then 403 is the
	 * token, and 429, 412 and 5xx except 501 are transient.
	 * @param what what was being done
	 * @param status the HTTP status
	 * @param errors the messages of the {@code errors} array
	 * @return the classified exception
	 */
	public static LeaseSourceException fromStatus(String what, int status, String errors) {
		String message = what + ": Vault answered " + status + ((errors.isEmpty()) ? "" : " (" + errors + ")");
		LeaseSourceException byMessage = fromLeaseMessage(errors, message);
		if (byMessage != null) {
			return byMessage;
		}
		if (status == 403) {
			return LeaseSourceException.unauthorized("permission-denied", message);
		}
		if (status == 429 || status == 412 || (status >= 500 && status != 501)) {
			return LeaseSourceException.transientFailure("http-" + status, message, null);
		}
		if (status == 400 && errors.contains("invalid role or secret ID")) {
			return LeaseSourceException.permanent("invalid-credentials", message);
		}
		return LeaseSourceException.permanent("http-" + status, message);
	}

	private static @Nullable LeaseSourceException fromLeaseMessage(String errors, String message) {
		if (errors.contains("past the max TTL")) {
			return LeaseSourceException.permanent("past-max-ttl", message);
		}
		if (errors.contains("lease not found") || errors.contains("invalid lease")) {
			return LeaseSourceException.gone("lease-not-found", message);
		}
		if (errors.contains("lease expired")) {
			return LeaseSourceException.gone("lease-expired", message);
		}
		if (errors.contains("not renewable")) {
			return LeaseSourceException.permanent("not-renewable", message);
		}
		return null;
	}

	/**
	 * Return the messages of a Vault error body ({@code {"errors":[...]}}), joined, or a
	 * short note when the body is not Vault's (an HTML page from a proxy, say). Never
	 * returns the body itself.
	 */
	static String errors(@Nullable String body) {
		if (body == null || body.isBlank()) {
			return "";
		}
		try {
			Object parsed = json.readValue(body, Object.class);
			if (parsed instanceof Map<?, ?> map && map.get("errors") instanceof List<?> errors) {
				return String.join("; ", errors.stream().map(String::valueOf).map(String::strip).toList());
			}
		}
		catch (RuntimeException ex) {
			// not JSON
		}
		return "a body that is not a Vault error";
	}

	private static <T extends Throwable> @Nullable T find(Throwable failure, Class<T> type) {
		for (Throwable candidate = failure; candidate != null; candidate = candidate.getCause()) {
			if (type.isInstance(candidate)) {
				return type.cast(candidate);
			}
			if (candidate.getCause() == candidate) {
				break;
			}
		}
		return null;
	}

	private static Throwable rootCause(Throwable failure) {
		Throwable root = failure;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		return root;
	}

	/**
	 * Make a call to Vault, classifying what it throws.
	 * @param what what is being done, for the message
	 * @param call the call
	 * @param <T> what it returns
	 * @return what it returned
	 * @throws LeaseSourceException the classified failure
	 */
	public static <T> @Nullable T call(String what, VaultCall<T> call) throws LeaseSourceException {
		try {
			return call.run();
		}
		catch (RuntimeException ex) {
			throw classify(what, ex);
		}
	}

	/**
	 * A call to Vault.
	 *
	 * @param <T> what it returns
	 */
	@FunctionalInterface
	public interface VaultCall<T> {

		/**
		 * Make the call.
		 * @return what it returned
		 */
		@Nullable T run();

	}

}
