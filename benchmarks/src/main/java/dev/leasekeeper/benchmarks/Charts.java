package dev.leasekeeper.benchmarks;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The PNG plots of {@code RESULTS.md}.
 */
final class Charts {

	private Charts() {
	}

	/**
	 * Requests per minute over the simulated hours, one line per rule, on a log scale.
	 */
	static void requestsPerMinute(Path file, String title, List<FleetStorm.Result> results) throws IOException {
		XYSeriesCollection data = new XYSeriesCollection();
		for (FleetStorm.Result result : results) {
			XYSeries series = new XYSeries(result.rule());
			int[] perMinute = result.perMinute();
			for (int minute = 0; minute < perMinute.length - 2; minute++) {
				series.add(minute / 60.0, Math.max(perMinute[minute], 0.5));
			}
			data.addSeries(series);
		}
		JFreeChart chart = ChartFactory.createXYLineChart(title, "hours", "requests per minute", data,
				PlotOrientation.VERTICAL, true, false, false);
		XYPlot plot = chart.getXYPlot();
		LogarithmicAxis axis = new LogarithmicAxis("requests per minute (log)");
		axis.setAllowNegativesFlag(false);
		plot.setRangeAxis(axis);
		style(plot, false);
		save(file, chart, 1400, 600);
	}

	/** Share of leases lost against outage length, one line per rule. */
	static void survival(Path file, double[] fractions, List<String> rules, double[][] lost) throws IOException {
		XYSeriesCollection data = new XYSeriesCollection();
		for (int r = 0; r < rules.size(); r++) {
			XYSeries series = new XYSeries(rules.get(r));
			for (int f = 0; f < fractions.length; f++) {
				series.add(fractions[f], 100 * lost[r][f]);
			}
			data.addSeries(series);
		}
		JFreeChart chart = ChartFactory.createXYLineChart("Leases lost to one outage", "outage length / TTL",
				"leases lost (%)", data, PlotOrientation.VERTICAL, true, false, false);
		style(chart.getXYPlot(), true);
		save(file, chart, 900, 600);
	}

	private static void style(XYPlot plot, boolean shapes) {
		plot.setBackgroundPaint(Color.WHITE);
		plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
		plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
		XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, shapes);
		for (int i = 0; i < plot.getDataset().getSeriesCount(); i++) {
			renderer.setSeriesStroke(i, new BasicStroke(1.2f));
		}
		plot.setRenderer(renderer);
	}

	private static void save(Path file, JFreeChart chart, int width, int height) throws IOException {
		Files.createDirectories(file.toAbsolutePath().getParent());
		ChartUtils.saveChartAsPNG(file.toFile(), chart, width, height);
	}

}
