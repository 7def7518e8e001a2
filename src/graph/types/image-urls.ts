import { builder } from '../builder.ts';

export interface ImageUrlsShape {
  small: string | null;
  large: string | null;
}

export const ImageUrlsRef = builder.objectRef<ImageUrlsShape>('ImageUrls').implement({
  description:
    'An image (product picture, shop or category logo) in two sizes. Product pictures and shop logos are served by this service itself, so they always have both URLs; a category logo may have none.',
  fields: (t) => ({
    small: t.exposeString('small', { nullable: true, description: 'URL of the small image.' }),
    large: t.exposeString('large', { nullable: true, description: 'URL of the large image.' }),
  }),
});
