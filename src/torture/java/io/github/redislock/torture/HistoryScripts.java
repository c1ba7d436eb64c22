package io.github.redislock.torture;

import java.util.List;

/**
 * The scripts that write the history on the history server, a {@code redis-server} no fault ever
 * touches. Each runs atomically, so the list {@code h} holds the records in the order of {@code
 * seq}, one global order for every worker; each stamps its record with the server's {@code TIME}
 * (in µs, the clock every process of this machine shares).
 *
 * <p>The keys of one lock name {@code N}: {@code fence:N} (the highest token the fenced store
 * accepted), {@code ctr:N} (a counter read at a section's start and written, through the fence, at
 * its end), {@code raw:N} (the same counter written without the fence), {@code refused:N} and
 * {@code accepted:N} (the fenced store's counts), {@code last:N} (the time of the last section
 * start, for the nemesis's liveness wait).
 *
 * <p>Records, fields separated by {@code |}:
 *
 * <pre>
 * S|seq|us|holder|name|mode|token|acqUs|ok|ctr|raw|form     a section starts (a fenced write)
 * W|seq|us|holder|name|mode|token|ok|validBefore             a fenced write inside a long section
 * E|seq|us|holder|name|mode|token|ok|validBefore             a section ends (fenced counter write)
 * R|seq|us|...                                               anything else, sent by {@link #RECORD}
 * </pre>
 *
 * {@code ok} is 1 when the fenced store accepted the write; {@code validBefore} is what {@code
 * isHeldByCurrentThread()} answered right after the section's previous write returned.
 */
final class HistoryScripts {
  private HistoryScripts() {}

  private static final String PRELUDE =
      """
      local function ge(a, b)
        if #a ~= #b then return #a > #b end
        return a >= b
      end
      local seq = redis.call('INCR', KEYS[1])
      local t = redis.call('TIME')
      local us = t[1] .. string.format('%06d', tonumber(t[2]))
      """;

  /**
   * A section starts. KEYS: seq, h, fence, ctr, raw, last, refused, accepted. ARGV: holder, name,
   * mode, token, acqUs, form. Returns {seq, ctr, raw, ok}.
   */
  static final String START =
      PRELUDE
          + """
          local ok = 0
          if ARGV[3] ~= 'r' then
            local fence = redis.call('GET', KEYS[3])
            if (not fence) or ge(ARGV[4], fence) then
              redis.call('SET', KEYS[3], ARGV[4])
              redis.call('INCR', KEYS[8])
              ok = 1
            else
              redis.call('INCR', KEYS[7])
            end
          end
          local ctr = redis.call('GET', KEYS[4]) or '0'
          local raw = redis.call('GET', KEYS[5]) or '0'
          redis.call('SET', KEYS[6], us)
          redis.call('RPUSH', KEYS[2], table.concat({'S', seq, us, ARGV[1], ARGV[2], ARGV[3],
            ARGV[4], ARGV[5], ok, ctr, raw, ARGV[6]}, '|'))
          return {seq, ctr, raw, ok}
          """;

  /**
   * A fenced write inside a section. KEYS: seq, h, fence, refused, accepted. ARGV: holder, name,
   * mode, token, validBefore. Returns {seq, ok}.
   */
  static final String WRITE =
      PRELUDE
          + """
          local ok = 0
          local fence = redis.call('GET', KEYS[3])
          if (not fence) or ge(ARGV[4], fence) then
            redis.call('SET', KEYS[3], ARGV[4])
            redis.call('INCR', KEYS[5])
            ok = 1
          else
            redis.call('INCR', KEYS[4])
          end
          redis.call('RPUSH', KEYS[2], table.concat({'W', seq, us, ARGV[1], ARGV[2], ARGV[3],
            ARGV[4], ok, ARGV[5]}, '|'))
          return {seq, ok}
          """;

  /**
   * A section ends: the counter read at its start, plus one, is written through the fence, and
   * without it to the raw counter. KEYS: seq, h, fence, ctr, raw, refused, accepted. ARGV: holder,
   * name, mode, token, ctrSeen, rawSeen, validBefore. Returns {seq, ok}.
   */
  static final String END =
      PRELUDE
          + """
          local ok = 0
          if ARGV[3] ~= 'r' then
            local fence = redis.call('GET', KEYS[3])
            if (not fence) or ge(ARGV[4], fence) then
              redis.call('SET', KEYS[3], ARGV[4])
              redis.call('SET', KEYS[4], tonumber(ARGV[5]) + 1)
              redis.call('INCR', KEYS[7])
              ok = 1
            else
              redis.call('INCR', KEYS[6])
            end
            redis.call('SET', KEYS[5], tonumber(ARGV[6]) + 1)
          end
          redis.call('RPUSH', KEYS[2], table.concat({'E', seq, us, ARGV[1], ARGV[2], ARGV[3],
            ARGV[4], ok, ARGV[7]}, '|'))
          return {seq, ok}
          """;

  /** Any other records, each ARGV one record's text after its type. KEYS: seq, h. */
  static final String RECORD =
      """
      local t = redis.call('TIME')
      local us = t[1] .. string.format('%06d', tonumber(t[2]))
      for i = 1, #ARGV do
        local seq = redis.call('INCR', KEYS[1])
        local text = ARGV[i]
        local bar = string.find(text, '|', 1, true)
        redis.call('RPUSH', KEYS[2], string.sub(text, 1, bar - 1) .. '|' .. seq .. '|' .. us
          .. string.sub(text, bar))
      end
      return #ARGV
      """;

  static final String SEQ = "seq";
  static final String HISTORY = "h";

  static List<String> startKeys(String name) {
    return List.of(
        SEQ,
        HISTORY,
        "fence:" + name,
        "ctr:" + name,
        "raw:" + name,
        "last:" + name,
        "refused:" + name,
        "accepted:" + name);
  }

  static List<String> writeKeys(String name) {
    return List.of(SEQ, HISTORY, "fence:" + name, "refused:" + name, "accepted:" + name);
  }

  static List<String> endKeys(String name) {
    return List.of(
        SEQ,
        HISTORY,
        "fence:" + name,
        "ctr:" + name,
        "raw:" + name,
        "refused:" + name,
        "accepted:" + name);
  }
}
