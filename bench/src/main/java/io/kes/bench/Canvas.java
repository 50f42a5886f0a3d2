package io.kes.bench;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import javax.imageio.ImageIO;

/** A white PNG canvas with a title, for the bench's charts (headless: the bench runs on servers). */
final class Canvas {

    final BufferedImage image;
    final Graphics2D g;

    Canvas(int width, int height, String title, int titleSize) {
        System.setProperty("java.awt.headless", "true");
        image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, titleSize));
        g.drawString(title, 20, titleSize + 12);
    }

    void writePng(Path png) throws IOException {
        g.dispose();
        ImageIO.write(image, "png", png.toFile());
    }
}
