package io.github.redislock.torture;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYStepRenderer;
import org.jfree.chart.ui.Layer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * {@code timeline.png}: per deployment, acquisitions per second over the run, with each fault's
 * window (from its start to its heal) shaded: blue when the design claims to survive it, red when
 * it is outside the model. Rendered headless with JFreeChart, as the benchmark's chart.
 */
final class TimelineChart {
  private static final Color IN_MODEL = new Color(0x1f, 0x77, 0xb4, 60);
  private static final Color OUT_OF_MODEL = new Color(0xd6, 0x27, 0x28, 70);
  private static final int WIDTH = 1400;
  private static final int PANEL_HEIGHT = 300;

  private TimelineChart() {}

  static void write(TortureSettings settings, List<PhaseResult> results, Path file)
      throws IOException {
    BufferedImage image =
        new BufferedImage(
            WIDTH, PANEL_HEIGHT * Math.max(1, results.size()), BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, image.getWidth(), image.getHeight());
    for (int i = 0; i < results.size(); i++) {
      chart(results.get(i))
          .draw(g, new Rectangle2D.Double(0, i * PANEL_HEIGHT, WIDTH, PANEL_HEIGHT));
    }
    g.dispose();
    ImageIO.write(image, "png", file.toFile());
  }

  private static JFreeChart chart(PhaseResult r) {
    XYSeries series = new XYSeries("acquisitions per second");
    for (int s = 0; s < r.perSecond.length; s++) {
      series.add(s, r.perSecond[s]);
    }
    NumberAxis time = new NumberAxis("seconds");
    NumberAxis rate = new NumberAxis("acquisitions / s");
    XYStepRenderer renderer = new XYStepRenderer();
    renderer.setSeriesPaint(0, Color.BLACK);
    XYPlot plot = new XYPlot(new XYSeriesCollection(series), time, rate, renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    for (PhaseHistory.FaultWindow f : r.faults) {
      double from = (f.startUs - r.startUs) / 1e6;
      double to = (Math.min(f.healUs, r.endUs) - r.startUs) / 1e6;
      IntervalMarker marker =
          new IntervalMarker(from, Math.max(to, from + 0.3), f.inModel ? IN_MODEL : OUT_OF_MODEL);
      marker.setLabel(f.kind);
      marker.setLabelFont(marker.getLabelFont().deriveFont(9f));
      plot.addDomainMarker(marker, Layer.BACKGROUND);
    }
    JFreeChart chart =
        new JFreeChart(
            r.deployment + ": " + r.description, JFreeChart.DEFAULT_TITLE_FONT, plot, false);
    chart.setBackgroundPaint(Color.WHITE);
    return chart;
  }
}
