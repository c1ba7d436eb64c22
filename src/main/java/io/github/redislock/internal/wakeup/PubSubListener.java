package io.github.redislock.internal.wakeup;

import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.JedisShardedPubSub;

/**
 * Plain or sharded Pub/Sub under one set of names: the reading loop of one subscription's
 * connection, which it calls back with what the server sends.
 */
interface PubSubListener {
  /** What the server sends, told to the subscription that reads the connection. */
  interface Events {
    /** The server confirmed {@code channel}. */
    void subscribed(PubSubListener from, String channel);

    /** The server confirmed that {@code channel} left. */
    void unsubscribed(PubSubListener from, String channel);

    /** A message on {@code channel}. */
    void message(PubSubListener from, String channel, String message);

    /** The answer to a health probe. */
    void pong(PubSubListener from);
  }

  /** Subscribes {@code channels} on {@code connection}, and reads it until the loop ends. */
  void run(Connection connection, String... channels);

  void add(String... channels);

  void remove(String... channels);

  void removeAll();

  /** Sends a health probe, answered without changing the subscription. */
  void probe(String channel);

  /** Whether the server has confirmed fewer unsubscriptions than subscriptions. */
  boolean isSubscribed();

  /** Plain Pub/Sub: {@code SUBSCRIBE}, probed by subscribing a channel again. */
  final class Plain extends JedisPubSub implements PubSubListener {
    private final Events owner;

    Plain(Events owner) {
      this.owner = owner;
    }

    @Override
    public void run(Connection connection, String... channels) {
      proceed(connection, channels);
    }

    @Override
    public void add(String... channels) {
      subscribe(channels);
    }

    @Override
    public void remove(String... channels) {
      unsubscribe(channels);
    }

    @Override
    public void removeAll() {
      unsubscribe();
    }

    @Override
    public void probe(String channel) {
      // Not PING: on a RESP3 connection its reply is a plain "PONG", which Jedis 8.0 matches to a
      // handler it queues only after the command is flushed; a reply read before that ends the
      // subscription ("Unexpected message : PONG"). A repeated SUBSCRIBE is answered as one.
      subscribe(channel);
    }

    @Override
    public void onSubscribe(String channel, int subscribedChannels) {
      owner.subscribed(this, channel);
    }

    @Override
    public void onUnsubscribe(String channel, int subscribedChannels) {
      owner.unsubscribed(this, channel);
    }

    @Override
    public void onMessage(String channel, String message) {
      owner.message(this, channel, message);
    }

    @Override
    public void onPong(String pattern) {
      owner.pong(this);
    }
  }

  /** Sharded Pub/Sub: {@code SSUBSCRIBE}, probed by subscribing a channel again. */
  final class Sharded extends JedisShardedPubSub implements PubSubListener {
    private final Events owner;

    Sharded(Events owner) {
      this.owner = owner;
    }

    @Override
    public void run(Connection connection, String... channels) {
      proceed(connection, channels);
    }

    @Override
    public void add(String... channels) {
      for (String channel : channels) {
        ssubscribe(channel); // the channels of one SSUBSCRIBE must share a slot
      }
    }

    @Override
    public void remove(String... channels) {
      for (String channel : channels) {
        sunsubscribe(channel);
      }
    }

    @Override
    public void removeAll() {
      sunsubscribe();
    }

    @Override
    public void probe(String channel) {
      ssubscribe(channel); // answered like a new subscription; the owner tells them apart
    }

    @Override
    public void onSSubscribe(String channel, int subscribedChannels) {
      owner.subscribed(this, channel);
    }

    @Override
    public void onSUnsubscribe(String channel, int subscribedChannels) {
      owner.unsubscribed(this, channel);
    }

    @Override
    public void onSMessage(String channel, String message) {
      owner.message(this, channel, message);
    }
  }
}
