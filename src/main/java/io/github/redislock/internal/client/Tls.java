package io.github.redislock.internal.client;

import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocketFactory;

/**
 * How the clients made for TLS URIs ({@code rediss://}, {@code rediss-sentinel://}, {@code
 * rediss-cluster://}) open their connections: the socket factory carries the trust material (and a
 * client certificate, for servers that ask for one), or is null for the JVM's defaults; the
 * parameters are applied to every connection. Without parameters, host names are verified ({@code
 * HTTPS} endpoint identification); with them, only if they say so.
 *
 * @param socketFactory makes the TLS sockets, or null for the JVM's default
 * @param parameters applied to every TLS socket (a copy, taken now), or null for the defaults with
 *     host-name verification
 */
public record Tls(SSLSocketFactory socketFactory, SSLParameters parameters) {
  /** The JVM's default trust store and key store, host names verified. */
  public static final Tls JVM_DEFAULT = new Tls(null, null);

  public Tls {
    parameters = parameters == null ? null : copy(parameters);
  }

  /** The parameters of every TLS connection, host names verified unless they say otherwise. */
  SSLParameters effectiveParameters() {
    if (parameters == null) {
      SSLParameters verifying = new SSLParameters();
      verifying.setEndpointIdentificationAlgorithm("HTTPS");
      return verifying;
    }
    return copy(parameters);
  }

  private static SSLParameters copy(SSLParameters from) {
    SSLParameters to = new SSLParameters();
    to.setCipherSuites(from.getCipherSuites());
    to.setProtocols(from.getProtocols());
    to.setEndpointIdentificationAlgorithm(from.getEndpointIdentificationAlgorithm());
    to.setServerNames(from.getServerNames());
    to.setSNIMatchers(from.getSNIMatchers());
    to.setAlgorithmConstraints(from.getAlgorithmConstraints());
    to.setUseCipherSuitesOrder(from.getUseCipherSuitesOrder());
    to.setApplicationProtocols(from.getApplicationProtocols());
    to.setMaximumPacketSize(from.getMaximumPacketSize());
    to.setEnableRetransmissions(from.getEnableRetransmissions());
    return to;
  }
}
