/**
 * Where the service serves the pictures it draws (./image-routes.ts): every product has its
 * picture in two sizes and every shop its logo, so an answer gives them on the request's
 * public base as it gives paging links (src/proxy-trust.ts), and they show without internet.
 */

export const IMAGE_SIZES = ['small', 'large'] as const;
export type ImageSize = (typeof IMAGE_SIZES)[number];

export const IMAGES_PATH = '/images';

export interface ImageUrls {
  small: string;
  large: string;
}

export function productImageUrls(publicBase: string, productId: number): ImageUrls {
  const base = `${publicBase}${IMAGES_PATH}/products/${productId}`;
  return { small: `${base}/small.svg`, large: `${base}/large.svg` };
}

/** A logo is drawn to scale: one file serves both sizes. */
export function shopLogoUrls(publicBase: string, shopId: number): ImageUrls {
  const url = `${publicBase}${IMAGES_PATH}/shops/${shopId}/logo.svg`;
  return { small: url, large: url };
}
