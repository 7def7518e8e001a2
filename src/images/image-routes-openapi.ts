/** The picture routes (image-routes.ts) in the OpenAPI document. */
import {
  errorAnswer,
  headersOf,
  IF_NONE_MATCH,
  OPTIONAL_BEARER,
  UNAVAILABLE,
  type OpenApiOperation,
  type OpenApiParameter,
  type OpenApiPaths,
} from '../openapi/vocabulary.ts';
import { IMAGE_SIZES, IMAGES_PATH } from './image-urls.ts';
import { PICTURE_CACHE_CONTROL, SVG_CONTENT_TYPE } from './image-routes.ts';

function idParameter(subject: string): OpenApiParameter {
  return {
    name: 'id',
    in: 'path',
    required: true,
    description: `The numeric ${subject} id.`,
    schema: { type: 'integer', minimum: 1, maximum: 2147483647 },
  };
}

function pictureOperation(
  operationId: string,
  summary: string,
  description: string,
  parameters: OpenApiParameter[],
): OpenApiOperation {
  return {
    operationId,
    tags: ['Images'],
    summary,
    description: `${description} The URLs answers give (GraphQL \`images\` and \`logo\`, the REST routes' fields of the same names) lead here. \`Cache-Control: ${PICTURE_CACHE_CONTROL}\`: a picture changes only with what it shows.`,
    security: OPTIONAL_BEARER,
    parameters: [...parameters, IF_NONE_MATCH],
    responses: {
      '200': {
        description: 'The picture, an SVG.',
        headers: headersOf(['X-Request-Id', 'ETag']),
        content: { [SVG_CONTENT_TYPE]: { schema: { type: 'string' } } },
      },
      '304': { description: 'Unchanged since the ETag given in `If-None-Match`.' },
      '400': errorAnswer('The id is not an integer between 1 and 2147483647.', []),
      '404': errorAnswer('No such product or shop.', []),
      '429': errorAnswer('Rate limited.', ['Retry-After']),
      '503': errorAnswer(UNAVAILABLE, ['Retry-After']),
    },
  };
}

export const IMAGE_ROUTES_OPENAPI: OpenApiPaths = {
  [`${IMAGES_PATH}/products/{id}/{size}.svg`]: {
    get: pictureOperation(
      'productImage',
      'A product’s picture',
      'Drawn by the service: the pictogram of the product’s category, its brand and model name. The same product gives the same bytes.',
      [
        idParameter('product'),
        {
          name: 'size',
          in: 'path',
          required: true,
          description: 'small (200 × 200 pixels) or large (800 × 800), the same drawing.',
          schema: { type: 'string', enum: [...IMAGE_SIZES] },
        },
      ],
    ),
  },
  [`${IMAGES_PATH}/shops/{id}/logo.svg`]: {
    get: pictureOperation(
      'shopLogo',
      'A shop’s logo',
      'Drawn by the service: the shop’s name on a colour its name gives (240 × 80 pixels), both the `small` and the `large` logo.',
      [idParameter('shop')],
    ),
  },
};
