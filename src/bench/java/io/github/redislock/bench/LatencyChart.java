package io.github.redislock.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;
import java.util.Locale;
import org.HdrHistogram.HistogramIterationValue;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * {@code latency.png}: percentile curves (HdrHistogram style) per implementation, for the
 * uncontended pair latency and for the wait of 8 threads on one key. The x axis is the percentile
 * on a log scale of 1/(1 - p), so 90%, 99%, 99.9% are evenly spaced; the y axis is the latency in
 * µs, log scale. Rendered headless with JFreeChart.
 */
final class LatencyChart {
  private static final Color[] COLORS = {
    new Color(0x888888), new Color(0x000000), new Color(0xd62728), new Color(0x1f77b4),
    new Color(0x2ca02c), new Color(0x98df8a), new Color(0xff7f0e), new Color(0x9467bd)
  };

  /** The baseline rows: their current row's colour, dashed. */
  private static final float[] DASHES = {9f, 5f};

  private LatencyChart() {}

  static void write(Results results, Path file) throws IOException {
    LogAxis percentile = new LogAxis("percentile");
    percentile.setNumberFormatOverride(new PercentileFormat());
    percentile.setRange(1, 1.6e5);
    decades(percentile);
    CombinedDomainXYPlot plot = new CombinedDomainXYPlot(percentile);
    plot.setGap(12);
    XYPlot uncontended = panel(results, Scenario.UNCONTENDED, "uncontended lock+unlock (µs)");
    plot.add(uncontended, 1);
    plot.add(
        panel(
            results,
            Scenario.ONE_KEY,
            results.settings.threads() + " threads, one key: wait in lock() (µs)"),
        1);
    plot.setFixedLegendItems(uncontended.getLegendItems());
    JFreeChart chart = new JFreeChart(null, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    chart.addSubtitle(
        new TextTitle(
            "Lock latency by percentile, "
                + results.started.toLocalDate()
                + " ("
                + results.environment.getOrDefault("Machine", "")
                + ")"));
    ChartUtils.saveChartAsPNG(file.toFile(), chart, 1200, 1000);
  }

  private static XYPlot panel(Results results, Scenario scenario, String label) {
    XYSeriesCollection data = new XYSeriesCollection();
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, false);
    for (Implementation impl : results.implementations) {
      Aggregate a = results.aggregate(impl, scenario);
      if (a == null || !a.hasNumbers()) {
        continue;
      }
      XYSeries series = new XYSeries(impl.label(), true, true);
      for (HistogramIterationValue v : a.latency().percentiles(5)) {
        double p = v.getPercentileLevelIteratedTo();
        if (p >= 99.999) {
          break;
        }
        series.add(100 / (100 - p), Math.max(0.01, v.getValueIteratedTo() / 1000.0));
      }
      int index = data.getSeriesCount();
      data.addSeries(series);
      renderer.setSeriesPaint(index, color(impl));
      renderer.setSeriesStroke(
          index,
          impl.baseline()
              ? new BasicStroke(3f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, DASHES, 0f)
              : new BasicStroke(impl.id().startsWith("ours") ? 3f : 1.6f));
    }
    LogAxis latency = new LogAxis(label);
    latency.setNumberFormatOverride(new DecimalFormat("#,##0.##"));
    latency.setSmallestValue(0.01);
    decades(latency);
    XYPlot plot = new XYPlot(data, null, latency, renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    return plot;
  }

  /** A colour per row, in the order of the rows without the baseline ones. */
  private static Color color(Implementation impl) {
    Implementation own = impl.baseline() ? impl.current() : impl;
    int index = 0;
    for (Implementation i : Implementation.values()) {
      if (i == own) {
        break;
      }
      if (!i.baseline()) {
        index++;
      }
    }
    return COLORS[index % COLORS.length];
  }

  /** One labelled tick per power of ten. */
  private static void decades(LogAxis axis) {
    axis.setAutoTickUnitSelection(false);
    axis.setTickUnit(new NumberTickUnit(1), false, false);
    axis.setMinorTickMarksVisible(true);
  }

  /** Labels x = 1/(1 - p) as the percentile p: 10 is 90%, 1000 is 99.9%. */
  private static final class PercentileFormat extends NumberFormat {
    private static final long serialVersionUID = 1L;

    @Override
    public StringBuffer format(double number, StringBuffer to, FieldPosition pos) {
      double p = 100 - 100 / number;
      String text =
          p < 0.0001
              ? "0%"
              : String.format(
                  Locale.ROOT, "%s%%", NumberFormat.getNumberInstance(Locale.ROOT).format(p));
      return to.append(text);
    }

    @Override
    public StringBuffer format(long number, StringBuffer to, FieldPosition pos) {
      return format((double) number, to, pos);
    }

    @Override
    public Number parse(String source, ParsePosition pos) {
      throw new UnsupportedOperationException();
    }
  }
}
