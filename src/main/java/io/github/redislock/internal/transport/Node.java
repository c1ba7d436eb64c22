package io.github.redislock.internal.transport;

import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * One Redis server that a multi-node operation talks to.
 *
 * @param label how the server is named in messages, never with credentials
 * @param client the client that reaches it
 * @param dial how to open connections of one's own to it, or {@code null} when only its client is
 *     known (a caller's client, whose configuration Jedis does not tell)
 */
public record Node(String label, UnifiedJedis client, Dial dial) {
  /**
   * The nodes of parallel lists: the i-th node has the i-th label, client and dial.
   *
   * @throws IllegalArgumentException if the lists differ in length
   */
  public static List<Node> of(
      List<String> labels, List<? extends UnifiedJedis> clients, List<Dial> dials) {
    if (labels.size() != clients.size() || dials.size() != clients.size()) {
      throw new IllegalArgumentException(
          clients.size() + " clients, " + labels.size() + " labels, " + dials.size() + " dials");
    }
    List<Node> nodes = new ArrayList<>(clients.size());
    for (int i = 0; i < clients.size(); i++) {
      nodes.add(new Node(labels.get(i), clients.get(i), dials.get(i)));
    }
    return List.copyOf(nodes);
  }
}
